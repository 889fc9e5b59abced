/**
 * `npm run bench -- --only soak`: mixed load from 50 connections on loopback for 10 minutes
 * (listings, downloads, uploads, searches, renames). fm must answer every request, keep its
 * open file descriptors level, and its resident memory must not grow by 10 % or more between
 * the end of the first minute and the end. `--soak-seconds N` shortens the run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fmt, median, memoryOf, percentile, startFm } from './lib.ts';
import type { Row } from './search.ts';

export interface SoakOptions {
  dataDir: string;
  seconds: number;
  connections: number;
  log: (line: string) => void;
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
  const fm = await startFm(root);
  const pid = fm.child.pid!;
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
  const warmAt = started + Math.min(60_000, (o.seconds * 1000) / 10);
  let rssWarm = 0;
  let rssPeak = 0;
  const sampler = setInterval(() => {
    const { rss } = memoryOf(pid);
    rssPeak = Math.max(rssPeak, rss);
    if (!rssWarm && Date.now() >= warmAt) rssWarm = rss;
  }, 250);

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
  const rssEnd = memoryOf(pid).rss;
  agent.destroy();
  const fdsAfter = await settle(() => openFds(pid), fdsBefore, 10_000);
  await fm.stop();

  const seconds = (Date.now() - started) / 1000;
  const total = [...times.values()].reduce((s, t) => s + t.length, 0);
  const errorCount = [...errors.values()].reduce((s, e) => s + e, 0);
  const growth = rssWarm ? rssEnd / rssWarm - 1 : Number.NaN;
  const rows: Row[] = [
    {
      workload: `soak: ${o.connections} connections, ${fmt(seconds / 60, 1)} min of mixed load`,
      fm: `${total} requests (${fmt(total / seconds, 0)}/s), ${errorCount} errors`,
      baseline: 'target: 0 errors, no fd growth, RSS growth < 10 %',
      ratio: `fds ${fdsBefore} → ${fdsAfter}; RSS ${fmt(rssWarm, 0)} → ${fmt(rssEnd, 0)} MiB (${fmt(growth * 100, 1)} %)`,
      note: `peak RSS ${fmt(rssPeak, 0)} MiB${firstErrors.length ? `; first errors: ${firstErrors.join(', ')}` : ''}`,
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
