/**
 * Time to the first rows of a folder: the first page the fm UI asks for (GET
 * /api/resources/<folder>?offset=0&limit=300, web/api/listing-pages.ts), for a folder of 100,000
 * entries against one of 1,000, in the same run. The target is a ratio near 1: the first rows
 * should not wait for the whole folder. "First visit" is the first request of a fresh server (the
 * folder's names are read and sorted); "later visits" the median of the next ones (the names are
 * remembered while the folder is unchanged, services/files/folder-names.ts). The score is fm
 * with its search index, once the index is ready (a large folder's page comes from it,
 * services/files/listing-indexed.ts); the same visits with --no-index are in the note.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type BenchFm, fmt, median, startFm } from './lib.ts';
import type { Row } from './search.ts';

const FIRST_PAGE = 300;

/** A folder of `count` empty files under dataDir, made once (kept between runs). */
function ensureFolder(dataDir: string, count: number): string {
  const dir = path.join(dataDir, 'pages', `n${count}`);
  const marker = path.join(dataDir, 'pages', `n${count}.complete`);
  if (fs.existsSync(marker)) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) fs.closeSync(fs.openSync(path.join(dir, `file-${String(i).padStart(6, '0')}.txt`), 'w'));
  fs.writeFileSync(marker, '');
  return dir;
}

/** One request timed by curl (sent to last byte), in ms. */
function timed(url: string, token: string): number {
  const out = execFileSync('curl', ['-s', '-f', '-o', '/dev/null', '-w', '%{time_total}', '-H', `X-Auth: ${token}`, url], { encoding: 'utf8' });
  return Number(out) * 1000;
}

async function indexReady(fm: BenchFm): Promise<void> {
  for (;;) {
    const res = await fetch(`${fm.url}/api/search-status`, { headers: { 'X-Auth': fm.token } });
    if (((await res.json()) as { ready: boolean }).ready) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Visits {
  /** The first request of a fresh server for each folder size. */
  first: Map<number, number>;
  /** The median of the later ones. */
  later: Map<number, number>;
}

/** First and later visits of each folder on a fresh fm started with `args` (its index ready first, when it has one). */
async function visits(dataDir: string, sizes: number[], runs: number, args: string[]): Promise<Visits> {
  const fm = await startFm(path.join(dataDir, 'pages'), args);
  try {
    if (!args.includes('--no-index')) await indexReady(fm);
    const page = (n: number) => `${fm.url}/api/resources/n${n}?offset=0&limit=${FIRST_PAGE}`;
    // The process's first listing (routes loaded on first use, code not optimised yet) is not a
    // folder's: it goes to the small folder holding both, so neither measured folder pays it.
    timed(`${fm.url}/api/resources/?offset=0&limit=${FIRST_PAGE}`, fm.token);
    const first = new Map(sizes.map((n) => [n, timed(page(n), fm.token)]));
    const later = new Map<number, number[]>(sizes.map((n) => [n, []]));
    for (let r = 0; r < runs; r++) for (const n of sizes) later.get(n)!.push(timed(page(n), fm.token));
    return { first, later: new Map(sizes.map((n) => [n, median(later.get(n)!)])) };
  } finally {
    await fm.stop();
  }
}

export async function benchFirstPage(dataDir: string, runs = 15): Promise<Row[]> {
  const sizes = [1_000, 100_000];
  const dirs = sizes.map((n) => ensureFolder(dataDir, n));
  // fm trusts remembered names, and the index's, only for a folder changed more than 2 s before
  // it read it (git's racy-timestamp rule, services/files/folder-names.ts): a folder made just
  // now would measure that rule instead.
  const youngest = Math.max(...dirs.map((d) => fs.statSync(d).mtimeMs));
  const settleMs = youngest + 3000 - Date.now();
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  const walk = await visits(dataDir, sizes, runs, ['--no-index']);
  const indexed = await visits(dataDir, sizes, runs, []);
  const [small, large] = sizes;
  const row = (name: string, v: (x: Visits) => Map<number, number>, digits: number) => {
    const ratio = v(indexed).get(large)! / v(indexed).get(small)!;
    const walkRatio = v(walk).get(large)! / v(walk).get(small)!;
    return {
      workload: `first ${FIRST_PAGE} rows of a 100,000-entry folder, ${name}`,
      fm: `${fmt(v(indexed).get(large)!, digits)} ms`,
      baseline: `1,000-entry folder ${fmt(v(indexed).get(small)!, digits)} ms`,
      ratio: `${fmt(ratio, 2)}× (target ≈ 1)`,
      score: { value: ratio, target: 1.5, better: 'lower' as const },
      note: `index ready; with --no-index ${fmt(v(walk).get(large)!, digits)} ms vs ${fmt(v(walk).get(small)!, digits)} ms = ${fmt(walkRatio, 2)}×`,
    };
  };
  return [row(`first visit of a fresh server (GET ?offset=0&limit=${FIRST_PAGE})`, (x) => x.first, 0), row('later visits', (x) => x.later, 1)];
}
