/**
 * Files API benchmarks (issue 3), each against a baseline measured in the same run:
 *   1. list a folder of 100,000 empty files through GET /api/resources, vs a bare
 *      readdir + lstat loop over the same folder (target: at most 2×);
 *   2. download a 1 GiB file through GET /api/raw with curl, vs nginx (sendfile on) serving
 *      the same file.
 * Medians of 5, runs interleaved with their baseline so that machine load hits both alike.
 * Run: `npm run build && npx tsx bench/files.ts` (writes bench/results/files.md), or import
 * `runFilesBench()`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT, curlSpeed, median, startFm, startNginx } from './lib.ts';

export interface FilesBenchOptions {
  /** Entries in the big folder (default 100,000). */
  entries?: number;
  /** Size of the download file in bytes (default 1 GiB). */
  downloadBytes?: number;
  runs?: number;
  /** Scratch folder (default: a new temp folder, removed afterwards). */
  workDir?: string;
  log?: (line: string) => void;
}

export interface FilesBenchResult {
  entries: number;
  listApiMs: number[];
  listBareMs: number[];
  /** CPU time (user + system, all threads) the server spent per listing, and the bare loop's. */
  listApiCpuMs: number[];
  listBareCpuMs: number[];
  listRatio: number;
  /** The first listing of the fresh server, before the folder settled (names read and sorted). */
  firstListMs: number;
  listJsonBytes: number;
  downloadBytes: number;
  fmMBps: number[];
  nginxMBps: number[];
  /** A bare Node http server piping fs.createReadStream (1 MiB chunks) to the response. */
  nodeMBps: number[];
  downloadRatio: number;
  machine: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The bare baseline: readdir, then one lstat per entry, nothing else. Wall and CPU ms. */
function bareList(dir: string): { ms: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const t = performance.now();
  let total = 0;
  for (const name of fs.readdirSync(dir)) total += fs.lstatSync(`${dir}/${name}`).size;
  if (total < 0) throw new Error('unreachable');
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** CPU ms (user + system, every thread) a process has used, from /proc (Linux). */
function processCpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks are 1/100 s here
}

/** One listing through the API, timed by curl (request sent to last byte received). */
function apiList(url: string, token: string, virtual: string): { ms: number; bytes: number } {
  const out = execFileSync(
    'curl',
    ['-s', '-f', '-o', '/dev/null', '-w', '%{time_total} %{size_download}', '-H', `X-Auth: ${token}`, `${url}/api/resources${virtual}`],
    {
      encoding: 'utf8',
    },
  );
  const [seconds, bytes] = out.trim().split(' ').map(Number);
  return { ms: seconds * 1000, bytes };
}

/** The bare Node baseline: http.createServer + fs.createReadStream(highWaterMark 1 MiB).pipe(res). */
async function startBareNode(root: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const script = `
const http = require('node:http'); const fs = require('node:fs'); const path = require('node:path');
http.createServer((req, res) => {
  const file = path.join(${JSON.stringify(root)}, path.basename(req.url));
  res.setHeader('Content-Length', fs.statSync(file).size);
  fs.createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res);
}).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
    'the bare Node server',
  );
  return { url: `http://127.0.0.1:${port}`, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export async function runFilesBench(opts: FilesBenchOptions = {}): Promise<FilesBenchResult> {
  const entries = opts.entries ?? 100_000;
  const downloadBytes = opts.downloadBytes ?? 1024 ** 3;
  const runs = opts.runs ?? 5;
  const log = opts.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const work = opts.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-files-'));
  const root = path.join(work, 'root');
  const big = path.join(root, 'big');
  const stops: Array<() => Promise<void> | void> = [];
  try {
    fs.mkdirSync(big, { recursive: true });
    log(`creating ${entries} empty files…`);
    for (let i = 0; i < entries; i++) fs.closeSync(fs.openSync(path.join(big, `file-${String(i).padStart(6, '0')}.txt`), 'w'));
    log(`writing a ${downloadBytes} byte file…`);
    const fd = fs.openSync(path.join(root, 'download.bin'), 'w');
    const chunk = crypto.randomBytes(16 << 20);
    for (let written = 0; written < downloadBytes; written += chunk.length) fs.writeSync(fd, chunk, 0, Math.min(chunk.length, downloadBytes - written));
    fs.closeSync(fd);
    fs.chmodSync(root, 0o755);
    fs.chmodSync(work, 0o755);

    const fm = await startFm(root, ['--no-index']);
    stops.push(() => fm.stop());

    // The first listing reads and sorts the names (a fresh server, a folder just made: never
    // remembered within 2 s of its last change, services/files/folder-names.ts); reported apart.
    bareList(big);
    const first = apiList(fm.url, fm.token, '/big');
    const jsonBytes = first.bytes;
    // Then wait until the folder is older than that window, as bench/first-page.ts does: how many
    // of the runs below fell inside it depended on start-up time and load, so the median of five
    // measured sometimes the rule and sometimes the listing.
    const settleMs = fs.statSync(big).ctimeMs + 3000 - Date.now();
    if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
    // Warm both paths once more (page cache, dentries, JIT), then interleave the measured runs.
    bareList(big);
    apiList(fm.url, fm.token, '/big');
    const listApiMs: number[] = [];
    const listBareMs: number[] = [];
    const listApiCpuMs: number[] = [];
    const listBareCpuMs: number[] = [];
    for (let r = 0; r < runs; r++) {
      const bare = bareList(big);
      listBareMs.push(bare.ms);
      listBareCpuMs.push(bare.cpuMs);
      const cpu0 = processCpuMs(fm.child.pid!);
      listApiMs.push(apiList(fm.url, fm.token, '/big').ms);
      listApiCpuMs.push(processCpuMs(fm.child.pid!) - cpu0);
      log(
        `list run ${r + 1}: api ${listApiMs[r].toFixed(0)} ms (cpu ${listApiCpuMs[r].toFixed(0)}), bare ${listBareMs[r].toFixed(0)} ms (cpu ${listBareCpuMs[r].toFixed(0)})`,
      );
    }

    const nginx = await startNginx(root);
    stops.push(() => nginx.stop());
    const bareNode = await startBareNode(root);
    stops.push(() => stop(bareNode.child));
    const auth = { 'X-Auth': fm.token };
    curlSpeed(`${nginx.url}/download.bin`);
    curlSpeed(`${fm.url}/api/raw/download.bin`, auth);
    const fmMBps: number[] = [];
    const nginxMBps: number[] = [];
    const nodeMBps: number[] = [];
    for (let r = 0; r < runs; r++) {
      nginxMBps.push(curlSpeed(`${nginx.url}/download.bin`));
      fmMBps.push(curlSpeed(`${fm.url}/api/raw/download.bin`, auth));
      nodeMBps.push(curlSpeed(`${bareNode.url}/download.bin`));
      log(`download run ${r + 1}: fm ${fmMBps[r].toFixed(0)} MB/s, nginx ${nginxMBps[r].toFixed(0)} MB/s, bare node ${nodeMBps[r].toFixed(0)} MB/s`);
    }
    const cpu = os.cpus();
    return {
      entries,
      listApiMs,
      listBareMs,
      listApiCpuMs,
      listBareCpuMs,
      listRatio: median(listApiMs) / median(listBareMs),
      firstListMs: first.ms,
      listJsonBytes: jsonBytes,
      downloadBytes,
      fmMBps,
      nginxMBps,
      nodeMBps,
      downloadRatio: median(fmMBps) / median(nginxMBps),
      machine: `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    };
  } finally {
    for (const s of stops.reverse()) await s();
    if (!opts.workDir) fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The results as a Markdown section. */
export function formatFilesBench(r: FilesBenchResult): string {
  const f = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(', ');
  return `# Files API benchmarks

Measured ${new Date().toISOString().slice(0, 10)} on ${r.machine}. Medians of ${r.listApiMs.length}; each run was interleaved with its baseline.

| workload | fm | baseline | ratio |
|---|---|---|---|
| list ${r.entries.toLocaleString('en')} empty files (GET /api/resources, full ${(r.listJsonBytes / 1e6).toFixed(1)} MB JSON over HTTP, timed by curl) vs bare readdirSync + lstatSync loop | ${median(r.listApiMs).toFixed(0)} ms | ${median(r.listBareMs).toFixed(0)} ms | **${r.listRatio.toFixed(2)}×** (target ≤ 2×) |
| the same listing in CPU time (server: every thread; bare loop: its process) | ${median(r.listApiCpuMs).toFixed(0)} ms | ${median(r.listBareCpuMs).toFixed(0)} ms | ${(median(r.listApiCpuMs) / median(r.listBareCpuMs)).toFixed(2)}× |
| download ${(r.downloadBytes / 1024 ** 3).toFixed(2)} GiB (GET /api/raw, curl to /dev/null) vs nginx sendfile | ${median(r.fmMBps).toFixed(0)} MB/s | ${median(r.nginxMBps).toFixed(0)} MB/s | **${(r.downloadRatio * 100).toFixed(0)} %** of nginx |
| the same download vs a bare Node http server (fs.createReadStream, 1 MiB chunks) | ${median(r.fmMBps).toFixed(0)} MB/s | ${median(r.nodeMBps).toFixed(0)} MB/s | ${((median(r.fmMBps) / median(r.nodeMBps)) * 100).toFixed(0)} % of bare Node |

Runs (ms): API ${f(r.listApiMs)}; bare ${f(r.listBareMs)}; the first listing of a fresh server, before the folder settled, ${r.firstListMs.toFixed(0)}. CPU (ms): API ${f(r.listApiCpuMs)}; bare ${f(r.listBareCpuMs)}.
Runs (MB/s, 10^6 bytes): fm ${f(r.fmMBps)}; nginx ${f(r.nginxMBps)}; bare Node ${f(r.nodeMBps)}.

Notes:
- The listing is rendered by two worker threads (lstat + JSON per entry) while the main thread
  sorts the names, so its wall time beats its CPU time; when other processes keep both cores
  busy, the wall ratio drifts towards the CPU ratio.
- Downloads stream through user space (Node has no sendfile): fm matches a bare Node server;
  the gap to nginx is Node's, not the gate's.
- The machine is shared with other jobs: compare ratios within one run, not absolute figures
  across runs.
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runFilesBench();
  const md = formatFilesBench(result);
  fs.mkdirSync(path.join(PROJECT, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(PROJECT, 'bench', 'results', 'files.md'), md);
  process.stdout.write(`\n${md}`);
}
