/**
 * `npm run bench`: every benchmark of the suite, fm against its baseline in the same run, as
 * one table of medians and ratios, written to bench/results/latest.md (partial.md for --only or
 * --small runs). Never part of `npm test`.
 *
 *   npm run bench                 default sizes (a few minutes on 2 cores)
 *   npm run bench -- --small      quicker: 100k search names, 256 MiB transfers
 *   npm run bench -- --only search,archives
 *   npm run bench -- --only listing,first-page,requests   the listing cases (issue 14)
 *   npm run bench -- --only live,analyzer   live listings under 1,000 changes/s, the storage analyzer (issue 19)
 *   npm run bench -- --only postgres     listing and login on PostgreSQL against SQLite (issue 21)
 *   npm run bench -- --only soak [--soak-seconds 60] [--soak-snapshots DIR]   10 minutes of mixed load (not in the default run)
 *   npm run bench -- --only quota   what a quota costs a write (issue 18)
 *   npm run bench -- --only audit   the audit log's cost: downloads and listings with it on and off
 *
 * Generated data lives in bench/.data (kept between runs: recreating a million files right
 * after deleting them is many times slower on this machine's file system).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT, fmt, median, memoryOf, startFm, timeIt } from './lib.ts';
import { benchSearch, type Row } from './search.ts';
import { renderChart } from './chart.ts';
import { benchSoak } from './soak.ts';
import { benchArchives, benchRequests } from './throughput.ts';
import { benchFirstPage } from './first-page.ts';
import { runFilesBench } from './files.ts';
import { runUploadBench } from './upload.ts';
import { benchWebdav } from './webdav.ts';
import { benchQuota } from './quotas.ts';
import { benchAudit } from './audit.ts';
import { benchAnalyzer, benchLive } from './live.ts';
import { benchPostgres } from './postgres.ts';
import { freshDownloadRow, parallelUploadRow, roundsNote, runFreshDownloadBench, runParallelUploadBench } from './transfers.ts';

const args = process.argv.slice(2);
const small = args.includes('--small');
const only = args.includes('--only') ? new Set(args[args.indexOf('--only') + 1].split(',')) : undefined;
const want = (name: string) => !only || only.has(name);
const dataDir = path.join(PROJECT, 'bench', '.data');
fs.mkdirSync(dataDir, { recursive: true });
const log = (line: string) => process.stderr.write(`${line}\n`);

const rows: Row[] = [];

async function section(name: string, fn: () => Promise<Row[]>): Promise<void> {
  if (!want(name)) return;
  log(`== ${name}`);
  const started = Date.now();
  try {
    rows.push(...(await fn()));
  } catch (err) {
    rows.push({ workload: name, fm: '–', baseline: '–', ratio: '–', note: `failed: ${(err as Error).message}` });
  }
  log(`   ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

await section('startup', async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-bench-empty-'));
  const kept = path.join(empty, 'kept.db');
  const freshMs: number[] = [];
  const restartMs: number[] = [];
  const nodeMs: number[] = [];
  let idle = 0;
  // Untimed: a build's first start writes its code cache (bench/.cache), which the timed starts read.
  await (await startFm(empty)).stop();
  for (let i = 0; i < 5; i++) {
    nodeMs.push(await timeIt(() => spawnSync(process.execPath, ['-e', '0'])));
    const fresh = await startFm(empty);
    freshMs.push(fresh.startupMs);
    await new Promise((r) => setTimeout(r, 500));
    idle = memoryOf(fresh.child.pid!).rss;
    await fresh.stop();
    // A restart on an existing database, serving the benchmark's whole data folder (every
    // generated tree): the index loads in the background, so the tree's size must not matter.
    const again = await startFm(dataDir, ['--database', kept]);
    if (i > 0) restartMs.push(again.startupMs);
    await again.stop();
  }
  fs.rmSync(empty, { recursive: true, force: true });
  const node = median(nodeMs);
  return [
    {
      workload: 'start-up to "listening on", first start (new database, admin password hashed)',
      fm: `${fmt(median(freshMs), 0)} ms`,
      baseline: `node -e 0: ${fmt(node, 0)} ms`,
      ratio: `${fmt(median(freshMs) / node, 1)}× (target ≤ 2.5×)`,
      score: { value: median(freshMs) / node, target: 2.5, better: 'lower' },
      note: `idle RSS ${fmt(idle, 0)} MiB`,
    },
    {
      workload: 'start-up to "listening on", restart over bench/.data (existing database)',
      fm: `${fmt(median(restartMs), 0)} ms`,
      baseline: `node -e 0: ${fmt(node, 0)} ms`,
      ratio: `${fmt(median(restartMs) / node, 1)}× (target ≤ 2.5×)`,
      score: { value: median(restartMs) / node, target: 2.5, better: 'lower' },
    },
  ];
});

await section('listing', async () => {
  const out: Row[] = [];
  for (const entries of [10_000, 100_000]) {
    const r = await runFilesBench({ entries, downloadBytes: 1 << 20, runs: 5, log: () => {} });
    const target = entries >= 100_000 ? 1.1 : 2;
    out.push({
      workload: `list ${entries.toLocaleString('en')} entries (GET /api/resources)`,
      fm: `${fmt(median(r.listApiMs), 0)} ms`,
      baseline: `readdir+lstat loop ${fmt(median(r.listBareMs), 0)} ms`,
      ratio: `${fmt(r.listRatio, 2)}× (target ≤ ${target}×)`,
      score: { value: r.listRatio, target, better: 'lower' },
      note: `first listing of a fresh server ${fmt(r.firstListMs, 0)} ms`,
    });
  }
  return out;
});

await section('first-page', () => benchFirstPage(dataDir));

await section('download', async () => {
  const bytes = small ? 256 * 1024 * 1024 : 1024 ** 3;
  const r = await runFilesBench({ entries: 10, downloadBytes: bytes, runs: 5, log: () => {} });
  return [
    {
      workload: `download ${fmt(bytes / 1024 ** 3, 2)} GiB (GET /api/raw), warm server`,
      fm: `${fmt(median(r.fmMBps), 0)} MB/s`,
      baseline: `nginx ${fmt(median(r.nginxMBps), 0)} MB/s; bare Node ${fmt(median(r.nodeMBps), 0)} MB/s`,
      ratio: `${fmt(r.downloadRatio, 2)}× nginx (target ≥ 0.9)`,
      score: { value: r.downloadRatio, target: 0.9, better: 'higher' },
    },
    freshDownloadRow(bytes, await runFreshDownloadBench(dataDir, bytes, 5, log)),
  ];
});

await section('upload', async () => {
  const size = small ? 256 * 1024 * 1024 : 1024 ** 3;
  const r = await runUploadBench({ size, runs: 5 });
  return [
    {
      workload: `tus upload ${fmt(size / 1024 ** 3, 2)} GiB in 10 MiB chunks`,
      fm: `${fmt(r.tusMBps, 0)} MB/s`,
      baseline: `write + fsync ${fmt(r.diskMBps, 0)} MB/s`,
      ratio: `${fmt(r.ratio, 2)}× (target ≥ 0.8)`,
      score: { value: r.ratio, target: 0.8, better: 'higher' },
      note: `nginx (one PUT, bench/nginx-receiver.ts) ${fmt(median(r.nginxRuns), 0)} MB/s = ${fmt(r.nginxRatio, 2)}× the baseline (rounds ${roundsNote(r.nginxRuns, r.nginxDiskRuns, r.nginxRatios, r.nginxLoad)}; nginx CPU ${fmt(median(r.nginxCpuPerGiB), 2)} s/GiB), fm ${fmt(r.tusMBps / median(r.nginxRuns), 2)}× of it; fm in one PATCH of the whole upload ${fmt(r.onePatchMBps, 0)} MB/s = ${fmt(r.onePatchRatio, 2)}× the baseline (the rest is the 10 MiB chunks' turnaround); a bare Node receiver (bench/bare-receiver.ts) ${fmt(r.bareMBps, 0)} MB/s = ${fmt(r.bareRatio, 2)}× the baseline (CPU ${fmt(r.bareCpuPerGiB, 2)} s/GiB), fm ${fmt(r.tusMBps / r.bareMBps, 2)}× of it; bench client CPU ${fmt(median(r.clientCpuRuns), 2)} s/GiB; server RSS ${fmt(r.idleRssMB, 0)} MB idle, peak ${fmt(r.peakRssMB, 0)} MB; server CPU ${fmt(r.serverCpuPerGiB, 2)} s/GiB (runs ${r.serverCpuRuns.map((c) => fmt(c, 2)).join(' / ')}); rounds ${roundsNote(r.tusRuns, r.diskRuns, r.ratios, r.load)}`,
    },
    parallelUploadRow(size, 5, await runParallelUploadBench(size, 5, 5, log)),
  ];
});

await section('webdav', () => benchWebdav({ downloadBytes: small ? 256 * 1024 * 1024 : 1024 ** 3 }));

await section('archives', () => benchArchives(dataDir));

await section('search', () => benchSearch({ dirs: small ? 100 : 1000, filesPerDir: 1000, dataDir, queries: 40 }));

await section('requests', () => benchRequests(dataDir));
await section('quota', () => benchQuota());

await section('audit', () => benchAudit({ dataDir, downloadBytes: small ? 256 * 1024 * 1024 : 1024 ** 3, runs: 9, log }));

await section('live', () => benchLive(dataDir));

await section('analyzer', () => benchAnalyzer(dataDir, small ? 100 : 1000));

await section('postgres', () => benchPostgres(dataDir));

// Ten minutes long: only when asked for (`--only soak`).
if (only?.has('soak')) {
  const seconds = args.includes('--soak-seconds') ? Number(args[args.indexOf('--soak-seconds') + 1]) : 600;
  const snapshotsDir = args.includes('--soak-snapshots') ? path.resolve(args[args.indexOf('--soak-snapshots') + 1]) : undefined;
  await section('soak', () => benchSoak({ dataDir, seconds, connections: 50, log, snapshotsDir }));
}

const machine = `${os.cpus().length} cores (${os.cpus()[0]?.model.trim()}), ${fmt(os.totalmem() / 1024 ** 3, 0)} GiB, Node ${process.version}, load average ${os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ')}`;
const table = [
  '| workload | fm | baseline | ratio | note |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.workload} | ${r.fm} | ${r.baseline} | ${r.ratio} | ${r.note ?? ''} |`),
].join('\n');
const md = `# Benchmark results\n\nRun ${new Date().toISOString()} on ${machine}${small ? ', --small sizes' : ''}.\nEvery baseline ran in the same run as fm; compare the ratios, not absolute figures across runs.\n\n${table}\n`;
fs.mkdirSync(path.join(PROJECT, 'bench', 'results'), { recursive: true });
// A partial run (--only, --small) must not replace the full run the README shows.
const name = only || small ? 'partial' : 'latest';
fs.writeFileSync(path.join(PROJECT, 'bench', 'results', `${name}.md`), md);
fs.writeFileSync(
  path.join(PROJECT, 'bench', 'results', `${name}.svg`),
  renderChart(rows, `fm benchmarks, ${new Date().toISOString().slice(0, 10)}, ${machine}`),
);
process.stdout.write(`\n${md}`);
