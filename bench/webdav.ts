/**
 * WebDAV against the JSON API on the same server, in the same run: PROPFIND Depth 1 (allprop,
 * the heaviest: it stats every file again for its ETag) of a folder of 10,000 files vs
 * GET /api/resources of the same folder, and GET of a large file through /dav/ vs /api/raw.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { curlSpeed, fmt, median, startFm } from './lib.ts';
import type { Row } from './search.ts';

/** curl's total time (ms) and size of one request. */
function timed(args: string[]): { ms: number; bytes: number } {
  const out = execFileSync('curl', ['-s', '-f', '-o', '/dev/null', '-w', '%{time_total} %{size_download}', ...args], { encoding: 'utf8' });
  const [seconds, bytes] = out.trim().split(' ').map(Number);
  return { ms: seconds * 1000, bytes };
}

export async function benchWebdav(opts: { entries?: number; downloadBytes: number; runs?: number }): Promise<Row[]> {
  const entries = opts.entries ?? 10_000;
  const runs = opts.runs ?? 5;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-dav-'));
  const root = path.join(work, 'root');
  const folder = path.join(root, 'big');
  fs.mkdirSync(folder, { recursive: true });
  for (let i = 0; i < entries; i++) fs.writeFileSync(path.join(folder, `file-${String(i).padStart(6, '0')}.txt`), String(i));
  const fd = fs.openSync(path.join(root, 'download.bin'), 'w');
  const chunk = crypto.randomBytes(16 << 20);
  for (let written = 0; written < opts.downloadBytes; written += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, opts.downloadBytes - written));
  fs.closeSync(fd);
  const fm = await startFm(root, ['--no-index']);
  try {
    const token = ['-H', `X-Auth: ${fm.token}`];
    const basic = ['-u', `admin:${fm.password}`];
    const json = () => timed([...token, `${fm.url}/api/resources/big`]);
    const propfind = () => timed([...basic, '-X', 'PROPFIND', '-H', 'Depth: 1', `${fm.url}/dav/big/`]);
    json();
    propfind();
    const jsonMs: number[] = [];
    const davMs: number[] = [];
    let davBytes = 0;
    for (let r = 0; r < runs; r++) {
      jsonMs.push(json().ms);
      const p = propfind();
      davMs.push(p.ms);
      davBytes = p.bytes;
    }
    const listRatio = median(davMs) / median(jsonMs);

    const auth = { Authorization: `Basic ${Buffer.from(`admin:${fm.password}`).toString('base64')}` };
    curlSpeed(`${fm.url}/api/raw/download.bin`, { 'X-Auth': fm.token });
    curlSpeed(`${fm.url}/dav/download.bin`, auth);
    const rawMBps: number[] = [];
    const davMBps: number[] = [];
    for (let r = 0; r < runs; r++) {
      rawMBps.push(curlSpeed(`${fm.url}/api/raw/download.bin`, { 'X-Auth': fm.token }));
      davMBps.push(curlSpeed(`${fm.url}/dav/download.bin`, auth));
    }
    const getRatio = median(davMBps) / median(rawMBps);
    return [
      {
        workload: `WebDAV PROPFIND Depth 1 (allprop) of ${entries.toLocaleString('en')} files`,
        fm: `${fmt(median(davMs), 0)} ms (${fmt(davBytes / 1e6, 1)} MB of XML)`,
        baseline: `GET /api/resources ${fmt(median(jsonMs), 0)} ms`,
        ratio: `${fmt(listRatio, 2)}× (target ≤ 1.5×)`,
        score: { value: listRatio, target: 1.5, better: 'lower' },
      },
      {
        workload: `WebDAV GET of ${fmt(opts.downloadBytes / 1024 ** 3, 2)} GiB`,
        fm: `${fmt(median(davMBps), 0)} MB/s`,
        baseline: `GET /api/raw ${fmt(median(rawMBps), 0)} MB/s`,
        ratio: `${fmt(getRatio, 2)}× (target ≥ 0.9)`,
        score: { value: getRatio, target: 0.9, better: 'higher' },
      },
    ];
  } finally {
    await fm.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
