import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EntryStore, ROOT_ID } from '../../src/services/indexer/store.ts';
import { TrigramIndex } from '../../src/services/indexer/trigrams.ts';
import { loadSnapshot, saveSnapshot } from '../../src/services/indexer/persist.ts';
import { SearchIndex } from '../../src/services/indexer/index.ts';
import { silentLogger } from '../../src/services/context.ts';
import { decodeName } from '../../src/services/files/disk/names.ts';

const file = (name: string, size = 1) => ({ name, size, mtimeMs: 1000, isDir: false, isLink: false, type: 'text' as const });
const dir = (name: string) => ({ name, size: 0, mtimeMs: 1000, isDir: true, isLink: false, type: '' as const });

describe('EntryStore', () => {
  it('keeps folder totals in step with additions, updates and removals', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const b = s.add(a, dir('b'));
    s.add(b, file('x', 10));
    const y = s.add(a, file('y', 5));
    expect(s.treeSizeOf(ROOT_ID)).toBe(15);
    expect(s.treeSizeOf(a)).toBe(15);
    s.update(y, 7, 2000);
    expect(s.treeSizeOf(a)).toBe(17);
    s.remove(b);
    expect(s.treeSizeOf(a)).toBe(7);
    expect(s.treeSizeOf(ROOT_ID)).toBe(7);
    expect(s.lookup('/a/b/x')).toBe(-1);
    expect(s.pathOf(y)).toBe('/a/y');
    expect(s.live).toBe(3);
  });

  it('keeps the number of entries under each folder (the analyzer counts)', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const b = s.add(a, dir('b'));
    s.add(b, file('x', 1));
    s.add(b, file('z', 1));
    s.add(a, file('y', 1));
    expect([s.treeCountOf(ROOT_ID), s.treeCountOf(a), s.treeCountOf(b)]).toEqual([5, 4, 2]);
    s.remove(b);
    expect([s.treeCountOf(ROOT_ID), s.treeCountOf(a)]).toEqual([2, 1]);
  });
});

describe('TrigramIndex', () => {
  it('returns every id containing a term, from the rarest trigram, ascending', () => {
    const t = new TrigramIndex();
    const names = ['report.pdf', 'annual-report.docx', 'photo.jpg', 'reporter.txt', 'x'];
    names.forEach((n, i) => {
      t.add(i + 1, n);
    });
    const ids = [...(t.candidates('report') ?? [])];
    expect(ids).toEqual([1, 2, 4]);
    expect(t.candidates('zz')).toBeUndefined();
    expect([...(t.candidates('qqq') ?? [])]).toEqual([]);
  });

  it('encodes large id gaps and many postings exactly', () => {
    const t = new TrigramIndex();
    const ids = [0, 1, 127, 128, 300, 16_384, 2_000_000, 2_000_001, 150_000_000];
    for (const id of ids) t.add(id, 'abc');
    for (let i = 0; i < 50_000; i++) t.add(200_000_000 + i * 3, 'abc');
    const out = [...(t.candidates('abc') ?? [])];
    expect(out.slice(0, ids.length)).toEqual(ids);
    expect(out.length).toBe(ids.length + 50_000);
    expect(out[out.length - 1]).toBe(200_000_000 + 49_999 * 3);
  });
  it('decodes runs of consecutive ids and gaps exactly, also when trimmed between additions', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let trial = 0; trial < 200; trial++) {
      const t = new TrigramIndex();
      const ids: number[] = [];
      let id = 0;
      for (let i = 0; i < 50; i++) {
        id += random() < 0.6 ? 1 : 1 + Math.floor(random() * 300);
        ids.push(id);
        t.add(id, 'abc');
        if (random() < 0.1) t.trim();
      }
      expect([...(t.candidates('abc') ?? [])]).toEqual(ids);
    }
  });

  it('hands out the same ids in blocks of any size, with ids added while a reader pauses read too', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const t = new TrigramIndex();
    const ids: number[] = [];
    let id = 0;
    const add = () => {
      id += random() < 0.7 ? 1 : 1 + Math.floor(random() * 20_000);
      ids.push(id);
      t.add(id, 'abc');
    };
    for (let i = 0; i < 3000; i++) {
      add();
      if (i === 2000) t.trim();
    }
    const readAll = (block: number) => {
      const cursor = t.candidates('abc')!;
      const out = new Int32Array(block);
      const got: number[] = [];
      for (let n = cursor.read(out); n > 0; n = cursor.read(out)) got.push(...out.subarray(0, n));
      return got;
    };
    for (const block of [1, 2, 3, 7, 256, 10_000]) expect(readAll(block), `block ${block}`).toEqual(ids);
    // A reader paused half-way (a query yielding to the event loop) reads what is added meanwhile.
    const cursor = t.candidates('abc')!;
    const out = new Int32Array(1000);
    const got = [...out.subarray(0, cursor.read(out))];
    for (let i = 0; i < 500; i++) add();
    for (let n = cursor.read(out); n > 0; n = cursor.read(out)) got.push(...out.subarray(0, n));
    expect(got).toEqual(ids);
    expect(t.candidates('abd')!.read(out)).toBe(0);
  });

  it('gives the same ids once packed, across several pools, and after live additions and a second packing', () => {
    // Enough postings that the build's chunks outgrow the first pool and come from mapped ones.
    const t = new TrigramIndex();
    const expected = new Map<string, number[]>();
    const add = (id: number, name: string) => {
      t.add(id, name);
      for (let i = 0; i + 3 <= name.length; i++) {
        const tri = name.slice(i, i + 3);
        const list = expected.get(tri) ?? [];
        if (list[list.length - 1] !== id) list.push(id);
        expected.set(tri, list);
      }
    };
    const check = () => {
      for (const [tri, ids] of expected) expect([...(t.candidates(tri) ?? [])], tri).toEqual(ids);
    };
    let id = 0;
    for (let i = 0; i < 60_000; i++) add((id += 1 + (i % 7 === 0 ? i % 300 : 0)), `f${i % 97}-${(i * 7919) % 1000}.t${i % 5}`);
    expect(t.bytes()).toBeGreaterThan(200_000);
    check();
    t.trim();
    check();
    for (let i = 0; i < 500; i++) add((id += 1 + (i % 3)), `f${i % 97}-live${i}.t${i % 5}`);
    check();
    t.trim();
    check();
  });
});

describe('SearchIndex on a real folder', () => {
  let root: string;
  let data: string;
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-')));
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-data-'));
    fs.mkdirSync(path.join(root, 'docs/deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'docs/Report 2024.pdf'), 'x'.repeat(100));
    fs.writeFileSync(path.join(root, 'docs/deep/notes.txt'), 'y'.repeat(20));
    fs.writeFileSync(path.join(root, 'ünïcode-名前.md'), 'z');
    fs.writeFileSync(path.join(root, '.fm-partial-123'), 'partial');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  });

  const names = (idx: SearchIndex, dirAbs: string, terms: string[], cs = false) => [...idx.query(dirAbs, terms, cs)].map((h) => h.rel).sort();

  it('indexes everything but partial uploads, and answers case-insensitively within a folder', async () => {
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    expect(idx.status()).toMatchObject({ ready: true, entries: 5 });
    expect(names(idx, root, ['report'])).toEqual(['docs/Report 2024.pdf']);
    expect(names(idx, root, ['report'], true)).toEqual([]);
    expect(names(idx, path.join(root, 'docs'), ['no', 're'])).toEqual(['Report 2024.pdf', 'deep/notes.txt']);
    expect(names(idx, root, ['名前'])).toEqual(['ünïcode-名前.md']);
    expect(names(idx, root, ['partial'])).toEqual([]);
    expect(idx.treeUsage(path.join(root, 'docs'))?.bytes).toBe(120);
    await idx.close();
  });

  it('applies fm writes at once and reconciles changes made while it was down', async () => {
    let idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    fs.writeFileSync(path.join(root, 'docs/new-report.txt'), 'n');
    await idx.written(path.join(root, 'docs/new-report.txt'));
    expect(names(idx, root, ['report'])).toContain('docs/new-report.txt');
    fs.renameSync(path.join(root, 'docs/deep'), path.join(root, 'docs/moved'));
    await idx.moved(path.join(root, 'docs/deep'), path.join(root, 'docs/moved'));
    expect(names(idx, root, ['notes'])).toEqual(['docs/moved/notes.txt']);
    await idx.close();

    // While "down": add, delete and rename outside fm.
    fs.writeFileSync(path.join(root, 'docs/moved/added-later.txt'), 'a');
    fs.rmSync(path.join(root, 'docs/Report 2024.pdf'));
    fs.mkdirSync(path.join(root, 'fresh'));
    fs.writeFileSync(path.join(root, 'fresh/inside.txt'), 'i');

    idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    expect(names(idx, root, ['added-later'])).toEqual(['docs/moved/added-later.txt']);
    expect(names(idx, root, ['report'])).toEqual(['docs/new-report.txt']);
    expect(names(idx, root, ['inside'])).toEqual(['fresh/inside.txt']);
    await idx.close();
  });

  it('sees changes made outside fm through the watcher', async () => {
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger });
    await idx.start();
    expect(idx.status().watching).toBe('watcher');
    fs.writeFileSync(path.join(root, 'outside-created.txt'), 'o');
    const deadline = Date.now() + 5000;
    while (!names(idx, root, ['outside-created']).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(names(idx, root, ['outside-created'])).toEqual(['outside-created.txt']);
    await idx.close();
  });

  it('holds its snapshot between chunks while a search runs, and writes it once the search ends', async () => {
    // The save would take a few ms; a running search holds it for up to a minute per chunk here.
    const searchQuiet = { quietMs: 20, maxWaitMs: 60_000 };
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false, saveIntervalMs: 10, searchQuiet });
    await idx.start();
    const liveIn = () => loadSnapshot(idx.snapshotFile, root, () => {})?.live;
    expect(liveIn()).toBe(6);
    const search = idx.query(root, ['report'], false);
    expect(search.next().done).toBe(false);
    fs.writeFileSync(path.join(root, 'docs/report-later.txt'), 'l');
    await idx.written(path.join(root, 'docs/report-later.txt'));
    // The periodic save starts (its temporary file appears), then waits for the search.
    const started = () => fs.readdirSync(data).some((f) => f.includes('.tmp-'));
    const until = async (done: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    };
    await until(started, 5000);
    expect(started()).toBe(true);
    await until(() => liveIn() !== 6, 300);
    expect(liveIn()).toBe(6);
    search.return(undefined);
    await until(() => liveIn() === 7, 5000);
    expect(liveIn()).toBe(7);
    await idx.close();
  });

  it('ignores a snapshot written for another root', async () => {
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    await idx.close();
    const store = loadSnapshot(idx.snapshotFile, '/somewhere/else', () => {});
    expect(store).toBeUndefined();
    const mine = loadSnapshot(idx.snapshotFile, root, () => {});
    expect(mine?.live).toBe(6);
    await saveSnapshot(mine!, root, path.join(data, 'copy.bin'));
    expect(loadSnapshot(path.join(data, 'copy.bin'), root, () => {})?.live).toBe(6);
  });
});

describe('names that are not UTF-8', () => {
  let root: string;
  let data: string;
  /** An absolute byte path under the root; `0xNN` in a segment written as a Latin-1 character. */
  const at = (...segments: string[]) => Buffer.from([root, ...segments].join('/'), 'latin1');
  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-bytes-')));
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-bytes-data-'));
    // Two folders that a lossy decoder shows alike: "a\uFFFD".
    fs.mkdirSync(at('a\xe9'));
    fs.mkdirSync(at('a\xe8'));
    fs.writeFileSync(at('a\xe9', 'x.txt'), 'xx');
    fs.writeFileSync(at('a\xe8', 'x.txt'), 'x');
    fs.writeFileSync(at('caf\xe9.txt'), 'c');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  });
  const names = (idx: SearchIndex, terms: string[]) => [...idx.query(root, terms, false)].map((h) => h.rel).sort();

  it('are indexed escaped and survive a snapshot exactly', async () => {
    let idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    expect(names(idx, ['caf'])).toEqual(['caf\uf7e9.txt']);
    expect(names(idx, ['x.txt'])).toEqual(['a\uf7e8/x.txt', 'a\uf7e9/x.txt']);
    expect(idx.treeUsage(`${root}/a\uf7e9`)?.bytes).toBe(2);
    await idx.close();
    idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    expect(names(idx, ['caf'])).toEqual(['caf\uf7e9.txt']);
    await idx.close();
  });
});

describe('the paths of hits', () => {
  let root: string;
  let data: string;
  /** An absolute byte path under the root; `0xNN` in a segment written as a Latin-1 character. */
  const at = (...segments: string[]) => Buffer.from([root, ...segments].join('/'), 'latin1');
  /** The oracle: every entry under `dir` on the disk, as "a/b/name" in fm's string form. */
  const onDisk = (dir: Buffer, rel = ''): string[] =>
    fs.readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }).flatMap((e) => {
      const r = rel + decodeName(e.name);
      return e.isDirectory() ? [r, ...onDisk(Buffer.concat([dir, Buffer.from('/'), e.name]), `${r}/`)] : [r];
    });
  const expected = (dir: Buffer, term: string) =>
    onDisk(dir)
      .filter((r) => r.slice(r.lastIndexOf('/') + 1).includes(term))
      .sort();
  const hits = (idx: SearchIndex, dir: Buffer, terms: string[]) => [...idx.query(decodeName(dir), terms, false)].map((h) => h.rel).sort();

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-paths-')));
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-paths-data-'));
    for (const d of ['p/q/deep', 'p/s', 'n\xe9/deeper/still', 'top']) fs.mkdirSync(at(...d.split('/')), { recursive: true });
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  });

  it('are each folder path plus the name, from any folder, with hits of many folders interleaved, after renames and removals', async () => {
    const folders = ['p', 'p/q', 'p/q/deep', 'p/s', 'n\xe9', 'n\xe9/deeper/still', 'top', ''];
    fs.writeFileSync(at('p', 'q', 'hit-scanned.txt'), 's');
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    // Added live one folder after another: the ids of each folder's hits are not consecutive.
    for (let i = 0; i < 3; i++) {
      for (const f of folders) {
        const file = at(...f.split('/').filter(Boolean), `hit-${i}-\xe8.txt`);
        fs.writeFileSync(file, 'x');
        await idx.written(decodeName(file));
      }
    }
    const check = () => {
      for (const dir of [at(), at('p'), at('p', 'q'), at('n\xe9'), at('n\xe9', 'deeper')]) {
        expect(hits(idx, dir, ['hit'])).toEqual(expected(dir, 'hit')); // from the trigrams
        expect(hits(idx, dir, ['t-'])).toEqual(expected(dir, 't-')); // a short term: every entry tested
        expect(hits(idx, dir, [])).toEqual(onDisk(dir).sort());
      }
    };
    check();
    expect(hits(idx, at('n\xe9', 'deeper'), ['hit'])).toContain('still/hit-2-\uf7e8.txt');

    fs.renameSync(at('p', 'q'), at('p', 'renamed'));
    await idx.moved(decodeName(at('p', 'q')), decodeName(at('p', 'renamed')));
    fs.rmSync(at('p', 's'), { recursive: true });
    await idx.removed(decodeName(at('p', 's')));
    fs.renameSync(at('n\xe9', 'deeper'), at('n\xe9', 'd\xe9per'));
    await idx.moved(decodeName(at('n\xe9', 'deeper')), decodeName(at('n\xe9', 'd\xe9per')));
    for (const dir of [at(), at('p'), at('p', 'renamed'), at('n\xe9'), at('n\xe9', 'd\xe9per')]) {
      expect(hits(idx, dir, ['hit'])).toEqual(expected(dir, 'hit'));
      expect(hits(idx, dir, [])).toEqual(onDisk(dir).sort());
    }
    expect(hits(idx, at(), ['hit'])).toContain('p/renamed/deep/hit-1-\uf7e8.txt');
    await idx.close();
  });
});
