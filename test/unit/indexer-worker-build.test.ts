/**
 * The full build with the scan in a worker thread (files/disk/tree-scan.ts, indexer/build.ts)
 * gives the index the main-thread scan gives; a worker that fails leaves a whole index (built
 * again on the main thread), never a half of one; and what is made while the worker scans is
 * found, in a folder it has read as in one it has not.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SearchIndex, type IndexOptions } from '../../src/services/indexer/index.ts';
import { startTreeScan, type StartTreeScan } from '../../src/services/files/disk/tree-scan.ts';
import { silentLogger, type Logger } from '../../src/services/context.ts';

let root: string;
let data: string;
const opened: SearchIndex[] = [];

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-worker-')));
  data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-worker-data-'));
});

afterEach(async () => {
  for (const idx of opened.splice(0)) await idx.close();
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(data, { recursive: true, force: true });
});

const at = (...parts: string[]) => path.join(root, ...parts);

function seed(): void {
  fs.mkdirSync(at('docs', 'deep', 'deeper'), { recursive: true });
  fs.mkdirSync(at('empty'));
  fs.mkdirSync(at('own'));
  fs.writeFileSync(at('docs', 'Report.PDF'), 'x'.repeat(300));
  fs.writeFileSync(at('docs', 'deep', 'notes.md'), 'n'.repeat(12));
  fs.writeFileSync(at('docs', 'deep', 'deeper', 'Résumé été.txt'), 'é');
  fs.writeFileSync(at('docs', 'deep', '日本語.jpg'), 'j');
  fs.writeFileSync(at('docs', 'Makefile'), 'all:');
  fs.writeFileSync(at('docs', 'trailing.'), '');
  fs.writeFileSync(at('own', 'fm.db'), 'db');
  fs.writeFileSync(at('docs', '.fm-partial-1-deadbeef'), 'partial');
  fs.symlinkSync('docs/Report.PDF', at('link.pdf'));
  // A name that is not UTF-8: its folder is read on the main thread.
  fs.mkdirSync(at('bytes'));
  fs.writeFileSync(Buffer.concat([Buffer.from(`${at('bytes')}/caf`), Buffer.from([0xe9, 0xff]), Buffer.from('.txt')]), 'b');
  fs.mkdirSync(at('bytes', 'inner'));
  fs.writeFileSync(at('bytes', 'inner', 'plain.txt'), 'p');
  // More than one batch in one folder.
  fs.mkdirSync(at('many'));
  for (let i = 0; i < 5000; i++) fs.writeFileSync(at('many', `f${i}.log`), '');
}

function open(extra: Partial<IndexOptions> = {}): SearchIndex {
  const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [at('own', 'fm.db')], log: silentLogger, watch: false, ...extra });
  opened.push(idx);
  return idx;
}

/** Every indexed entry, by path: what it is, its size, type, time, and its folder totals. */
function dump(idx: SearchIndex): Record<string, string> {
  const { store } = idx.folderEntries(root)!;
  const out: Record<string, string> = {};
  for (let id = 0; id < store.count; id++) {
    if (store.isDead(id)) continue;
    const kind = store.isDir(id) ? 'dir' : store.isLink(id) ? 'link' : 'file';
    out[store.pathOf(id) || '/'] = [kind, store.sizeOf(id), store.typeOf(id), store.mtime[id], store.treeSizeOf(id), store.treeCountOf(id)].join(' ');
  }
  return out;
}

const hits = (idx: SearchIndex, term: string) => [...idx.query(root, [term], false)].map((h) => h.rel).sort();

describe('the index built in a worker thread', () => {
  it('holds what the main-thread scan holds: names (bytes that are not UTF-8 too), kinds, sizes, types, folder totals', async () => {
    seed();
    const here = open({ scanWorker: false });
    await here.start();
    // Counted, and any warning kept: a worker that failed would be replaced by the main-thread scan.
    const warnings: string[] = [];
    let batches = 0;
    const counted: StartTreeScan = (job, onMessage) =>
      startTreeScan(job, (m) => {
        batches++;
        onMessage(m);
      });
    const worker = open({
      dataDir: fs.mkdtempSync(path.join(data, 'w-')),
      scanWorker: counted,
      log: { ...silentLogger, warn: (m: string) => warnings.push(m) },
    });
    await worker.start();
    expect(warnings).toEqual([]);
    // A batch per folder read (two for "many", one per worker for the root), the deferred "bytes".
    expect(batches).toBe(7 + Math.min(2, os.availableParallelism()));
    const expected = dump(here);
    expect(Object.keys(expected)).toHaveLength(5018);
    expect(expected['/docs']).toBe(`dir 0  ${fs.lstatSync(at('docs')).mtimeMs} 319 8`);
    expect(expected['/bytes/caf\uf7e9\uf7ff.txt']).toMatch(/^file 1 text /);
    expect(expected['/own/fm.db']).toBeUndefined();
    expect(dump(worker)).toEqual(expected);
    for (const term of ['résumé', 'REPORT', '日本', 'caf', 'plain', 'makefile', 'f4999', 'pdf']) expect(hits(worker, term)).toEqual(hits(here, term));
    expect(hits(worker, 'résumé')).toEqual(['docs/deep/deeper/Résumé été.txt']);
  });

  it('is built again on the main thread, whole, when the worker fails half-way (and says so)', async () => {
    seed();
    const warnings: string[] = [];
    const log: Logger = { ...silentLogger, warn: (m: string) => warnings.push(m) };
    let batches = 0;
    let failed = false;
    const failing: StartTreeScan = (job, onMessage) =>
      startTreeScan(job, (m) => {
        // The other worker may still have a batch under way when this one fails: it is not counted.
        if (failed) return;
        if (++batches === 3) {
          failed = true;
          throw new Error('injected failure');
        }
        onMessage(m);
      });
    const idx = open({ scanWorker: failing, log });
    await idx.start();
    expect(failed).toBe(true);
    expect(warnings).toEqual(['search index: the scan worker failed (injected failure); scanning on the main thread']);
    const here = open({ scanWorker: false, dataDir: fs.mkdtempSync(path.join(data, 'm-')) });
    await here.start();
    expect(dump(idx)).toEqual(dump(here));
    expect(idx.status()).toMatchObject({ ready: true, entries: 5017 });
  });

  it('stops delivering once closed while the workers scan, and the build ends (close resolves)', async () => {
    seed();
    let delivered = 0;
    let closing: Promise<void> | undefined;
    const closingEarly: StartTreeScan = (job, onMessage) =>
      startTreeScan(job, (m) => {
        delivered++;
        onMessage(m);
        closing ??= idx.close();
      });
    const idx = open({ scanWorker: closingEarly });
    await idx.start().catch(() => {});
    await closing;
    expect(delivered).toBe(1);
    expect(idx.status().ready).toBe(false);
  });

  it('finds what is made while the worker scans, in a folder it has read and in one it has not', async () => {
    fs.mkdirSync(at('a', 'b'), { recursive: true });
    fs.writeFileSync(at('a', 'b', 'old.txt'), 'o');
    let made = false;
    const making: StartTreeScan = (job, onMessage) =>
      startTreeScan(job, (m) => {
        onMessage(m);
        // Right after the root's batch: the root was read, "a" is watched (the worker reads it before or after).
        if (made || !('batch' in m)) return;
        made = true;
        fs.writeFileSync(at('top-late.txt'), 't');
        fs.writeFileSync(at('a', 'a-late.txt'), 'a');
      });
    const idx = open({ scanWorker: making, watch: true });
    await idx.start();
    expect(made).toBe(true);
    fs.writeFileSync(at('a', 'b', 'after.txt'), 'x');
    await eventually(() => expect(hits(idx, 'late')).toEqual(['a/a-late.txt', 'top-late.txt']));
    await eventually(() => expect(hits(idx, 'after')).toEqual(['a/b/after.txt']));
  });
});

/** Polls until `check` passes (events arrive from the OS, a moment later). */
const eventually = (check: () => void, timeout = 5000) => vi.waitFor(check, { timeout, interval: 20 });
