/**
 * Archives and request throughput, each against a command-line or nginx baseline in the same
 * run: zip and tar.gz of 10,000 small files (fm's /api/raw vs `zip -r -6` and `tar czf`, both
 * compressing at level 6 like fm), and requests per second with p99 latency on a small listing
 * (wrk, 50 connections) for fm vs nginx's JSON autoindex of the same folder.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fmt, have, median, sampleRss, startFm, startNginx, timeIt } from './lib.ts';
import type { Row } from './search.ts';

/** 10,000 files of 1–8 KiB of random bytes in 100 folders (about 46 MB), made once. */
export function ensureSmallFiles(dataDir: string, count = 10_000): string {
  const root = path.join(dataDir, `small-${count}`);
  const marker = path.join(root, '.complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'set', `d${String(i % 100).padStart(3, '0')}`);
    if (i < 100) fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `f${i}.bin`), crypto.randomBytes(1024 * (1 + (i % 8))));
  }
  // A small listing for the throughput test: 50 files, like the baseline's.
  const small = path.join(root, 'fifty');
  fs.mkdirSync(small);
  for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(small, `file-${i}.txt`), 'x'.repeat(i * 10));
  fs.writeFileSync(marker, '');
  return root;
}

function sh(cmd: string): void {
  const r = spawnSync('sh', ['-c', cmd], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`failed: ${cmd}`);
}

/** Downloads `url` into /dev/null; returns how many bytes came. */
function curlToNull(url: string, token: string): number {
  const r = spawnSync('curl', ['-sf', '-o', '/dev/null', '-w', '%{size_download}', '-H', `X-Auth: ${token}`, url], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`curl ${url} failed (${r.status})`);
  return Number(r.stdout);
}

/** The size of what `cmd` writes to its standard output (not timed). */
function outputSize(cmd: string): number {
  return Number(spawnSync('sh', ['-c', `${cmd} | wc -c`], { encoding: 'utf8' }).stdout.trim());
}

export async function benchArchives(dataDir: string, runs = 3): Promise<Row[]> {
  const root = ensureSmallFiles(dataDir);
  const inputMB = Number(spawnSync('du', ['-sb', path.join(root, 'set')], { encoding: 'utf8' }).stdout.split('\t')[0]) / 1e6;
  const fm = await startFm(root, ['--no-index']);
  const rows: Row[] = [];
  try {
    for (const [algo, label, baseline] of [
      ['zip', 'zip', `cd ${root} && zip -qr -6 - set`],
      ['targz', 'tar.gz', `tar czf - -C ${root} set`],
    ] as const) {
      if (algo === 'zip' && !have('zip')) continue;
      const fmTimes: number[] = [];
      const baseTimes: number[] = [];
      let fmBytes = 0;
      const rss = sampleRss(fm.child.pid!);
      for (let i = 0; i < runs; i++) {
        fmTimes.push(
          await timeIt(() => {
            fmBytes = curlToNull(`${fm.url}/api/raw/set?algo=${algo}`, fm.token);
          }),
        );
        baseTimes.push(await timeIt(() => sh(`${baseline} > /dev/null`)));
      }
      const peak = rss.stop();
      // A faster archive must not be a bigger one: both sizes, in the same run. (The files are
      // random bytes, so this shows framing and stored-entry overhead, not compression.)
      const baseBytes = outputSize(baseline);
      const f = median(fmTimes);
      const b = median(baseTimes);
      // Entries deflate in parallel, which the zip CLI cannot; tar.gz in parallel gzip blocks.
      const target = algo === 'zip' ? 1.0 : 1.3;
      rows.push({
        workload: `${label} of 10,000 files (${fmt(inputMB, 0)} MB)`,
        fm: `${fmt(f, 0)} ms = ${fmt(inputMB / (f / 1000), 0)} MB/s`,
        baseline: `${algo === 'zip' ? 'zip -6' : 'tar czf'} ${fmt(b, 0)} ms`,
        ratio: `${fmt(b / f, 2)}× the CLI's speed (target ≥ ${target})`,
        score: { value: b / f, target, better: 'higher' },
        note: `fm peak RSS ${fmt(peak, 0)} MiB; archive ${fmt(fmBytes / 1e6, 1)} MB vs ${fmt(baseBytes / 1e6, 1)} MB (${fmt(fmBytes / baseBytes, 3)}×)`,
      });
    }
  } finally {
    await fm.stop();
  }
  return rows;
}

export function wrk(url: string, headers: Record<string, string>, extra: string[] = [], seconds = 8): { rps: number; p99: number } {
  const args = ['-t2', '-c50', `-d${seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = spawnSync('wrk', [...args, ...extra, url], { encoding: 'utf8' }).stdout;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p99raw = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = p99raw ? Number(p99raw[1]) * (p99raw[2] === 'us' ? 0.001 : p99raw[2] === 's' ? 1000 : 1) : NaN;
  return { rps, p99 };
}

/** Seconds of wrk against each server before its measured run. */
const WARM_UP_S = 2;

export async function benchRequests(dataDir: string): Promise<Row[]> {
  if (!have('wrk'))
    return [{ workload: 'small listing under load (wrk)', fm: '–', baseline: '–', ratio: '–', note: 'wrk is not installed (apt-get install -y wrk)' }];
  const root = ensureSmallFiles(dataDir);
  const fm = await startFm(root, ['--no-index']);
  const nginx = await startNginx(root);
  try {
    // Each server gets the same warm-up run first, and the measured run is the steady state: in
    // its first seconds after a start fm runs its request path unoptimised while V8 compiles it,
    // which nginx does not have; measured cold, that one-off dominated fm's p99 (bench/results/listing.md).
    const fmUrl = `${fm.url}/api/resources/fifty`;
    const cold = wrk(fmUrl, { 'X-Auth': fm.token }, [], WARM_UP_S);
    const rss = sampleRss(fm.child.pid!);
    const f = wrk(fmUrl, { 'X-Auth': fm.token });
    const peak = rss.stop();
    wrk(`${nginx.url}/fifty/`, {}, [], WARM_UP_S);
    const n = wrk(`${nginx.url}/fifty/`, {});
    return [
      {
        workload: 'listing of 50 files, wrk -c50 (req/s, p99)',
        fm: `${fmt(f.rps, 0)} req/s, p99 ${fmt(f.p99)} ms`,
        baseline: `nginx ${fmt(n.rps, 0)} req/s, p99 ${fmt(n.p99)} ms`,
        ratio: `${fmt(f.rps / n.rps, 2)}× nginx (target ≥ 0.4); p99 ${fmt(f.p99 / n.p99, 1)}× nginx's (target ≤ 3)`,
        score: { value: f.rps / n.rps, target: 0.4, better: 'higher' },
        note: `after a ${WARM_UP_S} s warm-up run each (fm's: p99 ${fmt(cold.p99)} ms); fm peak RSS ${fmt(peak, 0)} MiB`,
      },
    ];
  } finally {
    nginx.stop();
    await fm.stop();
  }
}
