/**
 * `npm run bench -- --only soak`: mixed load from 50 connections on loopback for 10 minutes
 * (listings, downloads, uploads, searches, renames). fm must answer every request, keep its
 * open file descriptors level, and its resident memory must not grow by 10 % or more from the
 * second tenth of the run (the second minute) to the last tenth: RSS is sampled every 2 s and
 * the two windows' medians are compared (a single sample lands anywhere in a GC cycle). Beside
 * it: the heap after a full collection, read through the inspector, and RSS right after it,
 * the figure a leak would raise (under load RSS wanders with V8's heap sizing; see
 * docs/decisions.md, "Performance: the soak").
 * `--soak-seconds N` shortens the run; `--soak-snapshots DIR` writes heap snapshots at the
 * end of the second tenth and after the run, for a leak hunt (compare them in DevTools; the
 * RSS figures of such a run are not comparable: the heap profiler holds memory of its own).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { connectInspector, inspectorUrl } from './inspector.ts';
import { fmt, median, memoryOf, percentile, startFm } from './lib.ts';
import type { Row } from './search.ts';

export interface SoakOptions {
  dataDir: string;
  seconds: number;
  connections: number;
  log: (line: string) => void;
  /** Write heap snapshots here (slow: each one pauses fm for seconds, and RSS grows by the profiler's own memory). */
  snapshotsDir?: string;
}

type Op = 'list' | 'download' | 'upload' | 'search' | 'rename';
/** Share of each operation in the mix (cumulative draw). */
const MIX: Array<[Op, number]> = [
  ['list', 0.4],
  ['download', 0.25],
  ['upload', 0.15],
  ['search', 0.1],
  ['rename', 0.1],
];
const FOLDERS = 20;
const FILES_PER_FOLDER = 50;
const DOWNLOAD_BYTES = 256 * 1024;
const UPLOAD_BYTES = 64 * 1024;

/** The soak tree: folders of small files to list, files to download, a folder per worker to write in. */
function ensureTree(dataDir: string): string {
  const root = path.join(dataDir, 'soak');
  const marker = path.join(root, '.complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  const payload = crypto.randomBytes(DOWNLOAD_BYTES);
  for (let d = 0; d < FOLDERS; d++) {
    const dir = path.join(root, 'tree', `dir-${d}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_FOLDER; f++) fs.writeFileSync(path.join(dir, `file-${d}-${f}.bin`), f === 0 ? payload : '');
  }
  fs.writeFileSync(marker, '');
  return root;
}

interface Answer {
  status: number;
  ms: number;
}

function request(agent: http.Agent, base: URL, token: string, method: string, pathAndQuery: string, body?: Buffer): Promise<Answer> {
  const started = process.hrtime.bigint();
  return new Promise((resolve) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path: pathAndQuery,
        headers: { 'X-Auth': token, ...(body ? { 'Content-Length': body.length } : {}) },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
        res.on('error', () => resolve({ status: 0, ms: 0 }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: 0 }));
    req.end(body);
  });
}

export interface Sample {
  /** ms since the load started */
  at: number;
  mib: number;
}

/**
 * Growth of RSS over a run of `runMs`: the median of the samples in the second tenth against
 * the median of those in the last tenth (samples taken after the run count in the last). RSS
 * follows the heap's size between collections up and down by a fifth under this load, so a
 * single sample at each end measures where two GC cycles happened to be.
 */
export function rssGrowth(samples: Sample[], runMs: number): { second: number; last: number; growth: number } {
  const tenth = runMs / 10;
  const second = median(samples.filter((x) => x.at >= tenth && x.at < 2 * tenth).map((x) => x.mib));
  const last = median(samples.filter((x) => x.at >= 9 * tenth).map((x) => x.mib));
  return { second, last, growth: last / second - 1 };
}

function openFds(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** Polls until `fn` settles at or below `limit`, or `ms` passed; returns the last value. */
async function settle(fn: () => number, limit: number, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let v = fn();
  while (v > limit && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = fn();
  }
  return v;
}

export async function benchSoak(o: SoakOptions): Promise<Row[]> {
  const root = ensureTree(o.dataDir);
  const work = path.join(root, 'work');
  fs.rmSync(work, { recursive: true, force: true });
  for (let w = 0; w < o.connections; w++) {
    fs.mkdirSync(path.join(work, `w-${w}`), { recursive: true });
    fs.writeFileSync(path.join(work, `w-${w}`, 'a.txt'), 'rename me');
  }
  const fm = await startFm(root, [], ['--inspect=127.0.0.1:0']);
  const pid = fm.child.pid!;
  const inspectorAt = inspectorUrl(fm.output());
  if (!inspectorAt) throw new Error(`no inspector address in fm's output: ${fm.output()}`);
  const inspector = await connectInspector(inspectorAt);
  const base = new URL(fm.url);
  const upload = crypto.randomBytes(UPLOAD_BYTES);
  const times = new Map<Op, number[]>(MIX.map(([op]) => [op, []]));
  const errors = new Map<Op, number>(MIX.map(([op]) => [op, 0]));
  const firstErrors: string[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });

  // Idle figures once the index is up and a short warm-up has run.
  const warm = await request(agent, base, fm.token, 'GET', '/api/resources/tree/dir-0');
  if (warm.status !== 200) throw new Error(`warm-up listing answered ${warm.status}`);
  const fdsBefore = openFds(pid);

  const started = Date.now();
  const end = started + o.seconds * 1000;
  const tenth = (o.seconds * 1000) / 10;
  const rss: Sample[] = [];
  const sampler = setInterval(() => rss.push({ at: Date.now() - started, mib: memoryOf(pid).rss }), 2000);
  // The heap after a full collection, and RSS right after it (what fm holds once its garbage is
  // gone: a leak, in JavaScript or native memory, raises it), at the end of tenths 2, 5 and 8
  // and after the run: never inside the windows compared, since a forced collection shrinks the
  // heap, and RSS with it, for a while. Few of them: each one resets V8's heap sizing.
  const heap: Sample[] = [];
  const rssAfterGc: Sample[] = [];
  const probe = async () => {
    heap.push({ at: Date.now() - started, mib: await inspector.heapAfterGc() });
    rssAfterGc.push({ at: Date.now() - started, mib: memoryOf(pid).rss });
    o.log(
      `   soak: ${Math.round((Date.now() - started) / 1000)} s, after a full GC: heap ${fmt(heap.at(-1)!.mib)} MiB, RSS ${fmt(rssAfterGc.at(-1)!.mib, 0)} MiB`,
    );
  };
  const probes = (async () => {
    for (const k of [2, 5, 8]) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + k * tenth - Date.now())));
      if (k === 2 && o.snapshotsDir) await inspector.snapshot(path.join(o.snapshotsDir, 'soak-early.heapsnapshot'));
      await probe();
    }
  })();

  async function worker(w: number): Promise<void> {
    let name = 'a.txt';
    let n = 0;
    while (Date.now() < end) {
      const draw = Math.random();
      let acc = 0;
      const op =
        MIX.find(([, share]) => {
          acc += share;
          return acc >= draw;
        })?.[0] ?? 'list';
      const d = Math.floor(Math.random() * FOLDERS);
      let answer: Answer;
      if (op === 'list') answer = await request(agent, base, fm.token, 'GET', `/api/resources/tree/dir-${d}`);
      else if (op === 'download') answer = await request(agent, base, fm.token, 'GET', `/api/raw/tree/dir-${d}/file-${d}-0.bin`);
      else if (op === 'upload') answer = await request(agent, base, fm.token, 'POST', `/api/resources/work/w-${w}/up-${n++ % 8}.bin?override=true`, upload);
      else if (op === 'search') answer = await request(agent, base, fm.token, 'GET', `/api/search/tree?query=${encodeURIComponent(`file-${d}-1`)}`);
      else {
        const next = name === 'a.txt' ? 'b.txt' : 'a.txt';
        answer = await request(
          agent,
          base,
          fm.token,
          'PATCH',
          `/api/resources/work/w-${w}/${name}?action=rename&destination=${encodeURIComponent(`/work/w-${w}/${next}`)}`,
        );
        if (answer.status === 200) name = next;
      }
      if (answer.status >= 200 && answer.status < 300) times.get(op)!.push(answer.ms);
      else {
        errors.set(op, errors.get(op)! + 1);
        if (firstErrors.length < 5) firstErrors.push(`${op}: HTTP ${answer.status}`);
      }
    }
  }

  let lastReport = Date.now();
  const progress = setInterval(() => {
    if (Date.now() - lastReport < 30_000) return;
    lastReport = Date.now();
    const done = [...times.values()].reduce((s, t) => s + t.length, 0);
    o.log(`   soak: ${Math.round((Date.now() - started) / 1000)} s, ${done} requests`);
  }, 1000);
  await Promise.all(Array.from({ length: o.connections }, (_, w) => worker(w)));
  clearInterval(progress);
  clearInterval(sampler);
  await probes;
  if (o.snapshotsDir) await inspector.snapshot(path.join(o.snapshotsDir, 'soak-late.heapsnapshot'));
  await probe();
  inspector.close();
  agent.destroy();
  const fdsAfter = await settle(() => openFds(pid), fdsBefore, 10_000);
  await fm.stop();

  const seconds = (Date.now() - started) / 1000;
  const total = [...times.values()].reduce((s, t) => s + t.length, 0);
  const errorCount = [...errors.values()].reduce((s, e) => s + e, 0);
  const { second: rssSecond, last: rssLast, growth } = rssGrowth(rss, o.seconds * 1000);
  const rssPeak = Math.max(...rss.map((x) => x.mib));
  // The former measure, for comparison: the first sample of the second tenth against the last one.
  const rssOneSample = [rss.find((x) => x.at >= tenth)?.mib ?? Number.NaN, rss[rss.length - 1]?.mib ?? Number.NaN];
  const byTenth = Array.from({ length: 10 }, (_, k) => rss.filter((x) => x.at >= k * tenth && x.at < (k + 1) * tenth).map((x) => x.mib));
  o.log(`   soak: RSS by tenth, median / max: ${byTenth.map((t) => `${fmt(median(t), 0)}/${fmt(Math.max(...t), 0)}`).join(', ')} MiB`);
  const rows: Row[] = [
    {
      workload: `soak: ${o.connections} connections, ${fmt(seconds / 60, 1)} min of mixed load`,
      fm: `${total} requests (${fmt(total / seconds, 0)}/s), ${errorCount} errors`,
      baseline: 'target: 0 errors, no fd growth, RSS growth < 10 %',
      ratio: `fds ${fdsBefore} → ${fdsAfter}; RSS (median of 2nd vs last tenth) ${fmt(rssSecond, 0)} → ${fmt(rssLast, 0)} MiB (${fmt(growth * 100, 1)} %)`,
      note: `after a full GC at the end of tenths 2, 5, 8 and after the run: heap ${heap.map((x) => fmt(x.mib)).join(', ')} MiB, RSS ${rssAfterGc.map((x) => fmt(x.mib, 0)).join(', ')} MiB; RSS median by tenth ${byTenth.map((t) => fmt(median(t), 0)).join(', ')} MiB; peak RSS ${fmt(rssPeak, 0)} MiB; one sample at each end: ${fmt(rssOneSample[0], 0)} → ${fmt(rssOneSample[1], 0)} MiB (${fmt((rssOneSample[1] / rssOneSample[0] - 1) * 100, 1)} %)${firstErrors.length ? `; first errors: ${firstErrors.join(', ')}` : ''}`,
    },
  ];
  for (const [op, t] of times) {
    rows.push({
      workload: `soak: ${op}`,
      fm: `p50 ${fmt(median(t))} ms, p99 ${fmt(percentile(t, 99))} ms`,
      baseline: '–',
      ratio: `${t.length} ok, ${errors.get(op)} errors`,
    });
  }
  return rows;
}
