/**
 * Transfer benchmarks of issue 14:
 *  - a 1 GiB download from a server started just for it (start fm, download once, stop), against
 *    nginx in the same round. A long-running server is measured by the warm case (files.ts); a
 *    fresh one shows what the first downloads after a start cost (the allocator has not settled);
 *  - several tus uploads at once, in aggregate, against as many files written at once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminClient } from '../test/helpers/server.ts';
import { spawnFm } from '../test/helpers/spawn.ts';
import { curlSpeed, fmt, median, startFm, startNginx } from './lib.ts';
import type { Row } from './search.ts';
import { alternate } from './rounds.ts';
import { uploadThroughTus, writeToDisk } from './upload.ts';
import { type NginxRounds, runNginxRounds } from './nginx-receiver.ts';

/** CPU seconds (user + system, every thread) a process has used, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks are 1/100 s here
}

/** A file of `bytes` random bytes in `dataDir`, made once and kept between runs. */
export function ensureDownloadFile(dataDir: string, bytes: number): string {
  const root = path.join(dataDir, `download-${bytes}`);
  const file = path.join(root, 'download.bin');
  if (fs.existsSync(file) && fs.statSync(file).size === bytes) return root;
  fs.mkdirSync(root, { recursive: true });
  const fd = fs.openSync(file, 'w');
  const chunk = crypto.randomBytes(16 << 20);
  for (let written = 0; written < bytes; written += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, bytes - written));
  fs.closeSync(fd);
  return root;
}

export interface FreshDownloadResult {
  fmMBps: number[];
  nginxMBps: number[];
  /** Server CPU seconds per GiB downloaded, each round. */
  fmCpuPerGiB: number[];
  /** Median over rounds of fm / nginx, each fm round paired with the nginx round before it. */
  ratio: number;
}

/** Rounds of: nginx downloads the file, then a freshly started fm downloads it once and stops. */
export async function runFreshDownloadBench(
  dataDir: string,
  bytes: number,
  rounds: number,
  log: (line: string) => void = () => {},
): Promise<FreshDownloadResult> {
  const root = ensureDownloadFile(dataDir, bytes);
  const nginx = await startNginx(root);
  const result: FreshDownloadResult = { fmMBps: [], nginxMBps: [], fmCpuPerGiB: [], ratio: 0 };
  const ratios: number[] = [];
  try {
    curlSpeed(`${nginx.url}/download.bin`); // the page cache
    for (let r = 0; r < rounds; r++) {
      const n = curlSpeed(`${nginx.url}/download.bin`);
      const fm = await startFm(root, ['--no-index']);
      try {
        const cpu0 = cpuSeconds(fm.child.pid!);
        const f = curlSpeed(`${fm.url}/api/raw/download.bin`, { 'X-Auth': fm.token });
        result.fmCpuPerGiB.push((cpuSeconds(fm.child.pid!) - cpu0) / (bytes / 1024 ** 3));
        result.fmMBps.push(f);
        result.nginxMBps.push(n);
        ratios.push(f / n);
        log(`fresh download round ${r + 1}: fm ${fmt(f, 0)} MB/s (cpu ${fmt(result.fmCpuPerGiB[r], 2)} s/GiB), nginx ${fmt(n, 0)} MB/s`);
      } finally {
        await fm.stop();
      }
    }
  } finally {
    nginx.stop();
  }
  result.ratio = median(ratios);
  return result;
}

/** The table row of the fresh-server download. */
export function freshDownloadRow(bytes: number, r: FreshDownloadResult): Row {
  return {
    workload: `download ${fmt(bytes / 1024 ** 3, 2)} GiB from a freshly started server (GET /api/raw, ${r.fmMBps.length} rounds)`,
    fm: `${fmt(median(r.fmMBps), 0)} MB/s`,
    baseline: `nginx ${fmt(median(r.nginxMBps), 0)} MB/s`,
    ratio: `${fmt(r.ratio, 2)}× nginx (target ≥ 0.9)`,
    score: { value: r.ratio, target: 0.9, better: 'higher' },
    note: `fm CPU ${fmt(median(r.fmCpuPerGiB), 2)} s/GiB`,
  };
}

export interface ParallelUploadResult {
  /** Aggregate MB/s of each round: all uploads' bytes over the time until the last one finished. */
  tusMBps: number[];
  /** One more than tusMBps: B F B F … F B (bench/rounds.ts). */
  diskMBps: number[];
  /** fm's CPU seconds (user + system) per GiB uploaded, each round. */
  fmCpuPerGiB: number[];
  /** Each tus round over the mean of the disk rounds before and after it, and their median. */
  ratios: number[];
  ratio: number;
  /** 1-minute load average before and after. */
  load: [number, number];
  /** The same uploads as PUTs into nginx (bench/nginx-receiver.ts), the same rounds. */
  nginx?: NginxRounds;
}

/**
 * `uploads` tus uploads at once (10 MiB PATCHes, one connection each) against as many files
 * written at once by one process on the same disk (10 MiB writes, one fsync each at the end and
 * one of the folder: a finished upload's promise), alternating (bench/rounds.ts).
 */
export async function runParallelUploadBench(
  total: number,
  uploads: number,
  rounds: number,
  log: (line: string) => void = () => {},
): Promise<ParallelUploadResult> {
  const each = Math.floor(total / uploads);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-parallel-'));
  const root = path.join(work, 'root');
  const home = path.join(work, 'home');
  fs.mkdirSync(root);
  fs.mkdirSync(home);
  const buf = Buffer.alloc(10 * 1024 * 1024);
  for (let i = 0; i < buf.length; i += 4) buf.writeUInt32LE((i * 2654435761) >>> 0, i);
  const fm = await spawnFm({ root, home, args: ['--log', 'off'] });
  const result: ParallelUploadResult = { tusMBps: [], diskMBps: [], fmCpuPerGiB: [], ratios: [], ratio: 0, load: [0, 0] };
  const mbps = (ms: number) => (each * uploads) / 1e6 / (ms / 1000);
  try {
    const admin = await adminClient(fm);
    const names = Array.from({ length: uploads }, (_, i) => `parallel-${i}.bin`);
    const measured = await alternate(
      rounds,
      async () => {
        const files = names.map((n) => path.join(work, n));
        const started = performance.now();
        await Promise.all(files.map((f) => writeToDisk(f, buf, each)));
        return { mbps: mbps(performance.now() - started), files };
      },
      async () => {
        const cpu0 = cpuSeconds(fm.child.pid!);
        const t = performance.now();
        await Promise.all(names.map((n) => uploadThroughTus(fm.url, admin.token, n, buf, each)));
        const tus = mbps(performance.now() - t);
        result.fmCpuPerGiB.push((cpuSeconds(fm.child.pid!) - cpu0) / ((each * uploads) / 1024 ** 3));
        const files = names.map((n) => path.join(root, n));
        for (const f of files) if (fs.statSync(f).size !== each) throw new Error(`${f} has the wrong size`);
        log(`${uploads} parallel uploads: tus ${fmt(tus, 0)} MB/s (cpu ${fmt(result.fmCpuPerGiB.at(-1) ?? 0, 2)} s/GiB)`);
        return { mbps: tus, files };
      },
      log,
    );
    result.tusMBps = measured.fm;
    result.diskMBps = measured.baseline;
    result.ratios = measured.ratios;
    result.ratio = measured.ratio;
    result.load = measured.load;
    const files = names.map((n) => path.join(work, n));
    result.nginx = await runNginxRounds(work, names, each, buf, rounds, async () => {
      const started = performance.now();
      await Promise.all(files.map((f) => writeToDisk(f, buf, each)));
      return { mbps: mbps(performance.now() - started), files };
    });
  } finally {
    await fm.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
  return result;
}

/** Every round of a B F B … F B sequence: "fm / baseline MB/s = ratio" per fm round, and the last baseline. */
export function roundsNote(fm: number[], baseline: number[], ratios: number[], load: [number, number]): string {
  const rounds = fm.map((x, i) => `${fmt(x, 0)} vs ${fmt(baseline[i], 0)}|${fmt(baseline[i + 1], 0)} = ${fmt(ratios[i], 2)}×`);
  return `${rounds.join(', ')}; load ${fmt(load[0], 1)}–${fmt(load[1], 1)}`;
}

/** The table row of the parallel uploads. */
export function parallelUploadRow(total: number, uploads: number, r: ParallelUploadResult): Row {
  return {
    workload: `${uploads} tus uploads at once, ${fmt(total / uploads / 1024 ** 2, 0)} MiB each in 10 MiB chunks (aggregate)`,
    fm: `${fmt(median(r.tusMBps), 0)} MB/s`,
    baseline: `${uploads} × write + fsync ${fmt(median(r.diskMBps), 0)} MB/s`,
    ratio: `${fmt(r.ratio, 2)}× (target ≥ 0.7)`,
    score: { value: r.ratio, target: 0.7, better: 'higher' },
    note: `${nginxNote(r)}server CPU ${fmt(median(r.fmCpuPerGiB), 2)} s/GiB; rounds ${roundsNote(r.tusMBps, r.diskMBps, r.ratios, r.load)}`,
  };
}

/** nginx's figures for the row's note: its median, its ratio, every round. */
function nginxNote(r: ParallelUploadResult): string {
  if (!r.nginx) return '';
  const n = r.nginx;
  const mbps = median(n.fm);
  return `nginx (one PUT each, bench/nginx-receiver.ts) ${fmt(mbps, 0)} MB/s = ${fmt(n.ratio, 2)}× the baseline (rounds ${roundsNote(n.fm, n.baseline, n.ratios, n.load)}; nginx CPU ${fmt(median(n.cpuPerGiB), 2)} s/GiB), fm ${fmt(median(r.tusMBps) / mbps, 2)}× of it; `;
}
