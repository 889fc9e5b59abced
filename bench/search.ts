/**
 * Search over a large tree: fm's index (through the HTTP API) against a full walk that lstats
 * every entry (filebrowser's method) and `find -iname`, in the same run. Also the index build
 * rate and memory of the fm process.
 */
import type { Score } from './chart.ts';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fmt, median, memoryOf, percentile, sampleRss, startFm, timeIt } from './lib.ts';

export interface SearchBenchOptions {
  /** Number of folders × files per folder. */
  dirs: number;
  filesPerDir: number;
  /** Where to keep the generated tree (reused across runs: recreating a big tree is slow). */
  dataDir: string;
  queries: number;
}

export interface Row {
  workload: string;
  fm: string;
  baseline: string;
  ratio: string;
  note?: string;
  /** The same-run ratio and its target, for the chart (bench/chart.ts). */
  score?: Score;
}

/** Creates dirs × files empty files (10 of them contain NEEDLE) unless the tree exists. */
export function ensureTree(o: SearchBenchOptions): string {
  const root = path.join(o.dataDir, `tree-${o.dirs}x${o.filesPerDir}`);
  const marker = path.join(root, '.complete');
  if (fs.existsSync(marker)) return root;
  fs.rmSync(root, { recursive: true, force: true });
  const total = o.dirs * o.filesPerDir;
  const every = Math.max(1, Math.floor(total / 10));
  for (let d = 0; d < o.dirs; d++) {
    const dir = path.join(root, `dir_${String(d).padStart(4, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let f = 0; f < o.filesPerDir; f++) {
      const n = d * o.filesPerDir + f;
      const name = n % every === 0 ? `NEEDLE_${d}_${f}.txt` : `file_${String(d).padStart(4, '0')}_${String(f).padStart(4, '0')}.txt`;
      fs.closeSync(fs.openSync(path.join(dir, name), 'w'));
    }
  }
  fs.writeFileSync(marker, '');
  return root;
}

/** filebrowser's search: walk everything, lstat every entry, match the basename. */
function walkSearch(root: string, needle: string): number {
  let hits = 0;
  const stack = [root];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const name of fs.readdirSync(dir)) {
      const p = `${dir}/${name}`;
      const st = fs.lstatSync(p);
      if (name.toLowerCase().includes(needle)) hits++;
      if (st.isDirectory()) stack.push(p);
    }
  }
  return hits;
}

async function fmSearch(url: string, token: string, query: string): Promise<number> {
  const res = await fetch(`${url}/api/search/?query=${encodeURIComponent(query)}`, { headers: { 'X-Auth': token } });
  const text = await res.text();
  if (!res.ok) throw new Error(`search: ${res.status} ${text}`);
  return text.split('\n').filter((l) => l.trim()).length;
}

export async function benchSearch(o: SearchBenchOptions): Promise<Row[]> {
  const total = o.dirs * o.filesPerDir;
  const root = ensureTree(o);
  const fm = await startFm(root);
  const rss = sampleRss(fm.child.pid!);
  const buildStart = Date.now();
  let status: { ready: boolean; entries: number } = { ready: false, entries: 0 };
  while (!status.ready) {
    await new Promise((r) => setTimeout(r, 100));
    const res = await fetch(`${fm.url}/api/search-status`, { headers: { 'X-Auth': fm.token } });
    status = (await res.json()) as typeof status;
  }
  const buildMs = Date.now() - buildStart;
  const buildPeak = rss.stop();
  const idle = memoryOf(fm.child.pid!).rss;

  const queries = ['needle', 'file_0000_00', '0500', 'needle_9'];
  const times: number[] = [];
  for (let i = 0; i < o.queries; i++) {
    const q = queries[i % queries.length];
    times.push(await timeIt(() => fmSearch(fm.url, fm.token, q)));
  }
  const hits = await fmSearch(fm.url, fm.token, 'needle');
  await fm.stop();

  const walkTimes = [await timeIt(() => walkSearch(root, 'needle')), await timeIt(() => walkSearch(root, 'needle'))];
  const findTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    findTimes.push(await timeIt(() => spawnSync('find', [root, '-iname', '*needle*'], { stdio: 'ignore' })));
  }
  const p50 = median(times);
  const p95 = percentile(times, 95);
  return [
    {
      workload: `search ${total.toLocaleString('en')} names (fm index p50 / p95)`,
      fm: `${fmt(p50)} / ${fmt(p95)} ms`,
      baseline: `walk+lstat ${fmt(median(walkTimes))} ms`,
      ratio: `${fmt(median(walkTimes) / p95, 0)}× faster (p95)`,
      note: `${hits} hits for "needle"`,
    },
    {
      workload: 'search: fm index vs find -iname',
      fm: `${fmt(p50)} ms`,
      baseline: `find ${fmt(median(findTimes))} ms`,
      ratio: `${fmt(median(findTimes) / p50, 0)}× faster (p50)`,
    },
    {
      workload: `index build ${total.toLocaleString('en')} entries`,
      fm: `${fmt(buildMs / 1000, 2)} s = ${fmt(total / (buildMs / 1000) / 1000, 0)}k entries/s`,
      baseline: `walk+lstat ${fmt(median(walkTimes) / 1000, 2)} s`,
      ratio: `${fmt(buildMs / median(walkTimes), 2)}× the walk's time (target ≤ 1)`,
      score: { value: buildMs / median(walkTimes), target: 1, better: 'lower' },
      note: `fm peak RSS ${fmt(buildPeak, 0)} MiB during the build, ${fmt(idle, 0)} MiB after`,
    },
  ];
}
