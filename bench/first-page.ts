/**
 * Time to the first rows of a folder: the first page the fm UI asks for (GET
 * /api/resources/<folder>?offset=0&limit=300, web/api/listing-pages.ts), for a folder of 100,000
 * entries against one of 1,000, in the same run. The target is a ratio near 1: the first rows
 * should not wait for the whole folder. "First visit" is the first request of a fresh server (the
 * folder's names are read and sorted); "later visits" the median of the next ones (the names are
 * remembered while the folder is unchanged, services/files/folder-names.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fmt, median, startFm } from './lib.ts';
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

export async function benchFirstPage(dataDir: string, runs = 7): Promise<Row[]> {
  const sizes = [1_000, 100_000];
  const dirs = sizes.map((n) => ensureFolder(dataDir, n));
  // fm trusts remembered names only for a folder changed more than 2 s ago (git's racy-timestamp
  // rule, services/files/folder-names.ts): a folder made just now would measure that rule instead.
  const youngest = Math.max(...dirs.map((d) => fs.statSync(d).mtimeMs));
  const settleMs = youngest + 3000 - Date.now();
  if (settleMs > 0) await new Promise((r) => setTimeout(r, settleMs));
  const fm = await startFm(path.join(dataDir, 'pages'), ['--no-index']);
  try {
    const page = (n: number) => `${fm.url}/api/resources/n${n}?offset=0&limit=${FIRST_PAGE}`;
    const first = new Map(sizes.map((n) => [n, timed(page(n), fm.token)]));
    const later = new Map<number, number[]>(sizes.map((n) => [n, []]));
    for (let r = 0; r < runs; r++) for (const n of sizes) later.get(n)!.push(timed(page(n), fm.token));
    const [small, large] = sizes;
    const warmSmall = median(later.get(small)!);
    const warmLarge = median(later.get(large)!);
    return [
      {
        workload: `first ${FIRST_PAGE} rows of a 100,000-entry folder, first visit (GET ?offset=0&limit=${FIRST_PAGE})`,
        fm: `${fmt(first.get(large)!, 0)} ms`,
        baseline: `1,000-entry folder ${fmt(first.get(small)!, 0)} ms`,
        ratio: `${fmt(first.get(large)! / first.get(small)!, 1)}× (target ≈ 1)`,
        score: { value: first.get(large)! / first.get(small)!, target: 1.5, better: 'lower' },
      },
      {
        workload: `first ${FIRST_PAGE} rows of a 100,000-entry folder, later visits`,
        fm: `${fmt(warmLarge, 1)} ms`,
        baseline: `1,000-entry folder ${fmt(warmSmall, 1)} ms`,
        ratio: `${fmt(warmLarge / warmSmall, 2)}× (target ≈ 1)`,
        score: { value: warmLarge / warmSmall, target: 1.5, better: 'lower' },
      },
    ];
  } finally {
    await fm.stop();
  }
}
