/**
 * Live listings and the storage analyzer (issue 19), each against itself at rest in the same run:
 *  - a 100,000-entry folder receiving 1,000 changes per second (another process rewriting its
 *    files) with a live stream open on it: the latency of a small request (the event loop's
 *    responsiveness) and of the folder's first page, under the changes vs without them;
 *  - the same first page while the changes also create and delete files (CHURN_PER_SECOND of
 *    each), which change the folder's ctime and its names, against the same page at rest;
 *  - the analyzer's query on a large tree (1M entries by default) against `du` of the same tree,
 *    and the small request's latency while analyzer queries run back to back.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fmt, median, percentile, startFm, timeIt, type BenchFm } from './lib.ts';
import { ensureTree, type Row } from './search.ts';

const FOLDER_SIZE = 100_000;
const CHANGES_PER_SECOND = 1000;
const ROUNDS = 3;
const ROUND_MS = 4000;
/** Creates and deletes per second (each) among the churn rounds' changes. */
const CHURN_PER_SECOND = 100;
/** After a churn round: the index's relist of the folder runs once its changes have settled 5 s. */
const SETTLE_MS = 6500;

function ensureFolder(dataDir: string): string {
  const root = path.join(dataDir, 'live');
  const dir = path.join(root, 'big');
  const marker = path.join(root, 'big.complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < FOLDER_SIZE; i++) fs.closeSync(fs.openSync(path.join(dir, `file-${String(i).padStart(6, '0')}.txt`), 'w'));
  fs.writeFileSync(marker, '');
  return root;
}

async function indexReady(fm: BenchFm): Promise<void> {
  for (;;) {
    const res = await fetch(`${fm.url}/api/search-status`, { headers: { 'X-Auth': fm.token } });
    if (((await res.json()) as { ready: boolean }).ready) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Requests `url` back to back for `ms`; returns each latency. */
async function probe(fm: BenchFm, url: string, ms: number): Promise<number[]> {
  const times: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    times.push(
      await timeIt(async () => {
        const res = await fetch(`${fm.url}${url}`, { headers: { 'X-Auth': fm.token } });
        await res.arrayBuffer();
      }),
    );
  }
  return times;
}

/**
 * Another process rewriting `perSecond` files of the folder each second, for `ms`; with `churn`,
 * `churn` of those changes per second create a `new-*` file and `churn` delete the oldest one it
 * created (the rest left are deleted at the end, so the folder keeps its 100,000 names).
 */
function changer(dir: string, perSecond: number, ms: number, churn = 0) {
  const script = `
    const fs = require('node:fs');
    const [dir, perSecond, ms, churn] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), Number(process.argv[4])];
    const every = churn > 0 ? Math.max(2, Math.floor(perSecond / churn)) : 0;
    const created = [];
    const start = Date.now();
    let n = 0;
    const tick = () => {
      const due = Math.floor(((Date.now() - start) / 1000) * perSecond);
      for (; n < due; n++) {
        if (every && n % every === 0) {
          const name = dir + '/new-' + process.pid + '-' + n + '.txt';
          fs.writeFileSync(name, String(n));
          created.push(name);
        } else if (every && n % every === 1 && created.length > 1) fs.unlinkSync(created.shift());
        else fs.writeFileSync(dir + '/file-' + String(n % 5000).padStart(6, '0') + '.txt', String(n));
      }
      if (Date.now() - start < ms) setTimeout(tick, 5);
      else {
        for (const name of created) fs.unlinkSync(name);
        console.log(n);
      }
    };
    tick();`;
  const child = spawn(process.execPath, ['-e', script, dir, String(perSecond), String(ms), String(churn)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise<number>((resolve) => {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', () => resolve(Number(out.trim())));
  });
}

/** Opens the folder's live stream and counts what it brings. */
async function openStream(fm: BenchFm, folder: string) {
  const abort = new AbortController();
  const res = await fetch(`${fm.url}/api/events/${folder}`, { headers: { 'X-Auth': fm.token }, signal: abort.signal });
  const counts = { change: 0, reset: 0, entries: 0 };
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += decoder.decode(chunk, { stream: true });
        for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          if (block.startsWith('event: change')) {
            counts.change++;
            counts.entries += (JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { items: unknown[] }).items.length;
          } else if (block.startsWith('event: reset')) counts.reset++;
        }
      }
    } catch {
      // closed
    }
  })();
  return {
    counts,
    close: async () => {
      abort.abort();
      await reading;
    },
  };
}

export async function benchLive(dataDir: string): Promise<Row[]> {
  const root = ensureFolder(dataDir);
  const fm = await startFm(root);
  try {
    await indexReady(fm);
    const small = '/api/usage/';
    const page = '/api/resources/big?offset=0&limit=300';
    // Rounds of rest and of changes, alternated: the machine's other load falls on both alike.
    const quietSmall: number[] = [];
    const quietPage: number[] = [];
    const busySmall: number[] = [];
    const busyPage: number[] = [];
    const churnPage: number[] = [];
    const stream = await openStream(fm, 'big');
    let written = 0;
    for (let round = 0; round < ROUNDS; round++) {
      quietSmall.push(...(await probe(fm, small, ROUND_MS / 2)));
      quietPage.push(...(await probe(fm, page, ROUND_MS / 2)));
      const writing = changer(path.join(root, 'big'), CHANGES_PER_SECOND, ROUND_MS);
      busySmall.push(...(await probe(fm, small, ROUND_MS / 2)));
      busyPage.push(...(await probe(fm, page, ROUND_MS / 2)));
      written += await writing;
      // Let the last batches go out before the churn round.
      await new Promise((r) => setTimeout(r, 1000));
      // The changer's own start (a second process) takes a few hundred ms under load: probe its second half.
      const churning = changer(path.join(root, 'big'), CHANGES_PER_SECOND, ROUND_MS, CHURN_PER_SECOND);
      await new Promise((r) => setTimeout(r, ROUND_MS / 2));
      churnPage.push(...(await probe(fm, page, ROUND_MS / 2)));
      written += await churning;
      // The next quiet round sees the folder settled again (its mark back in the index).
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    }
    await stream.close();
    const p95 = (xs: number[]) => percentile(xs, 95);
    const tail = (xs: number[]) => `p99 / max ${fmt(percentile(xs, 99), 1)} / ${fmt(Math.max(...xs), 1)} ms`;
    const tails = (busy: number[], quiet: number[]) => `${tail(busy)} during the changes, ${tail(quiet)} at rest (${busy.length} / ${quiet.length} requests)`;
    const note = `${written} files rewritten in ${ROUNDS} rounds of ${ROUND_MS / 1000} s; the stream (open throughout) brought ${stream.counts.change} batches (${stream.counts.entries} entries) and ${stream.counts.reset} resets`;
    return [
      {
        workload: `small request p50 / p95 while a ${FOLDER_SIZE.toLocaleString('en')}-entry folder gets ${CHANGES_PER_SECOND.toLocaleString('en')} changes/s, live stream open`,
        fm: `${fmt(median(busySmall), 1)} / ${fmt(p95(busySmall), 1)} ms`,
        baseline: `same stream, no changes ${fmt(median(quietSmall), 1)} / ${fmt(p95(quietSmall), 1)} ms`,
        ratio: `${fmt(p95(busySmall) / p95(quietSmall), 1)}× (p95, target ≤ 3)`,
        score: { value: p95(busySmall) / p95(quietSmall), target: 3, better: 'lower' },
        note: `${note}; ${tails(busySmall, quietSmall)}`,
      },
      {
        workload: `first 300 rows of that folder p50 / p95 during the changes`,
        fm: `${fmt(median(busyPage), 1)} / ${fmt(p95(busyPage), 1)} ms`,
        baseline: `at rest ${fmt(median(quietPage), 1)} / ${fmt(p95(quietPage), 1)} ms`,
        ratio: `${fmt(p95(busyPage) / p95(quietPage), 1)}× (p95, target ≤ 3)`,
        score: { value: p95(busyPage) / p95(quietPage), target: 3, better: 'lower' },
        note: tails(busyPage, quietPage),
      },
      {
        workload: `first 300 rows of that folder p50 / p95 during creates and deletes (${CHURN_PER_SECOND}/s of each among the ${CHANGES_PER_SECOND.toLocaleString('en')} changes/s)`,
        fm: `${fmt(median(churnPage), 1)} / ${fmt(p95(churnPage), 1)} ms`,
        baseline: `at rest ${fmt(median(quietPage), 1)} / ${fmt(p95(quietPage), 1)} ms`,
        ratio: `${fmt(p95(churnPage) / p95(quietPage), 1)}× (p95, target ≤ 3)`,
        score: { value: p95(churnPage) / p95(quietPage), target: 3, better: 'lower' },
        note: tails(churnPage, quietPage),
      },
    ];
  } finally {
    await fm.stop();
  }
}

export async function benchAnalyzer(dataDir: string, dirs: number): Promise<Row[]> {
  const root = ensureTree({ dirs, filesPerDir: 1000, dataDir, queries: 0 });
  const total = dirs * 1000;
  const fm = await startFm(root);
  let times: number[];
  let during: number[];
  let quiet: number[];
  try {
    await indexReady(fm);
    const analyze = async () => {
      const res = await fetch(`${fm.url}/api/analyze/?depth=2&limit=40`, { headers: { 'X-Auth': fm.token } });
      const body = (await res.json()) as { state: string };
      if (body.state !== 'ready') throw new Error(`analyzer: ${body.state}`);
    };
    await analyze();
    times = [];
    for (let i = 0; i < 20; i++) times.push(await timeIt(analyze));
    quiet = await probe(fm, '/api/usage/', 2000);
    // The small request while analyzer queries run back to back: how long the event loop is held.
    let running = true;
    const load = (async () => {
      while (running) await analyze();
    })();
    during = await probe(fm, '/api/usage/', 3000);
    running = false;
    await load;
  } finally {
    await fm.stop();
  }
  const du = [await timeIt(() => spawnSync('du', ['--max-depth=2', root], { stdio: 'ignore' }))];
  du.push(await timeIt(() => spawnSync('du', ['--max-depth=2', root], { stdio: 'ignore' })));
  const p95 = percentile(times, 95);
  return [
    {
      workload: `storage analyzer on ${total.toLocaleString('en')} entries (GET /api/analyze/?depth=2, p50 / p95)`,
      fm: `${fmt(median(times), 1)} / ${fmt(p95, 1)} ms`,
      baseline: `du --max-depth=2 ${fmt(median(du), 0)} ms`,
      ratio: `${fmt(median(du) / p95, 0)}× faster (p95; target p95 < 200 ms)`,
      score: { value: p95 / 200, target: 1, better: 'lower' },
    },
    {
      workload: 'small request p95 while analyzer queries run back to back',
      fm: `${fmt(percentile(during, 95), 1)} ms (max ${fmt(Math.max(...during), 1)})`,
      baseline: `at rest ${fmt(percentile(quiet, 95), 1)} ms`,
      ratio: `${fmt(percentile(during, 95) / percentile(quiet, 95), 1)}×`,
    },
  ];
}
