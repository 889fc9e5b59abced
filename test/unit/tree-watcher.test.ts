import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TreeWatcher, type TreeEvent } from '../../src/services/files/disk/tree-watcher.ts';
import { SearchIndex } from '../../src/services/indexer/index.ts';
import { silentLogger } from '../../src/services/context.ts';

/** Polls until `check` passes (events arrive from the OS, a moment later). */
const eventually = (check: () => void, timeout = 5000) => vi.waitFor(check, { timeout, interval: 20 });

describe('TreeWatcher', () => {
  let root: string;
  let events: TreeEvent[];
  let watcher: TreeWatcher;
  let errors: Error[];
  const at = (...segments: string[]) => [root, ...segments].join('/');
  const saw = (type: TreeEvent['type'], ...segments: string[]) => events.some((e) => e.type === type && e.path === at(...segments));

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tw-')));
    fs.mkdirSync(at('a', 'b'), { recursive: true });
    fs.writeFileSync(at('a', 'f.txt'), 'f');
    events = [];
    errors = [];
    watcher = new TreeWatcher({ onEvents: (e) => events.push(...e), onError: (err) => errors.push(err), skip: (abs) => abs.endsWith('.skipped') });
    // As the index's scan does: every folder found, named.
    for (const dir of [root, at('a'), at('a', 'b')]) watcher.watch(dir);
  });
  afterEach(() => {
    watcher.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('reports files created, modified and deleted at any depth', async () => {
    fs.writeFileSync(at('a', 'b', 'new.txt'), 'n');
    await eventually(() => expect(saw('create', 'a', 'b', 'new.txt')).toBe(true));
    fs.appendFileSync(at('a', 'f.txt'), 'more');
    await eventually(() => expect(saw('update', 'a', 'f.txt')).toBe(true));
    fs.rmSync(at('a', 'b', 'new.txt'));
    await eventually(() => expect(saw('delete', 'a', 'b', 'new.txt')).toBe(true));
    fs.writeFileSync(at('x.skipped'), 's');
    fs.writeFileSync(at('marker'), 'm');
    await eventually(() => expect(saw('create', 'marker')).toBe(true));
    expect(saw('create', 'x.skipped')).toBe(false);
    expect(errors).toEqual([]);
  });

  it('watches a folder made later and every folder below it, reporting the folder once', async () => {
    fs.mkdirSync(at('a', 'new', 'deep'), { recursive: true });
    await eventually(() => expect(saw('create', 'a', 'new')).toBe(true));
    expect(watcher.size).toBe(5);
    fs.writeFileSync(at('a', 'new', 'deep', 'late.txt'), 'l');
    await eventually(() => expect(saw('create', 'a', 'new', 'deep', 'late.txt')).toBe(true));
  });

  it('follows a renamed folder: the old path is deleted, the new one watched', async () => {
    fs.renameSync(at('a'), at('renamed'));
    await eventually(() => expect(saw('create', 'renamed') && saw('delete', 'a')).toBe(true));
    events = [];
    fs.writeFileSync(at('renamed', 'b', 'after.txt'), 'a');
    await eventually(() => expect(saw('create', 'renamed', 'b', 'after.txt')).toBe(true));
    expect(events.some((e) => e.path.startsWith(`${at('a')}/`))).toBe(false);
    expect(watcher.size).toBe(3);
  });

  it('watches a folder removed and made again under the same name', async () => {
    fs.rmSync(at('a'), { recursive: true });
    await eventually(() => expect(saw('delete', 'a')).toBe(true));
    expect(watcher.size).toBe(1);
    fs.mkdirSync(at('a'));
    await eventually(() => expect(saw('create', 'a')).toBe(true));
    events = [];
    fs.writeFileSync(at('a', 'again.txt'), 'g');
    await eventually(() => expect(saw('create', 'a', 'again.txt')).toBe(true));
  });

  it('hands names that are not UTF-8 over exactly', async () => {
    fs.writeFileSync(Buffer.from(`${root}/a/caf\xe9.txt`, 'latin1'), 'c');
    await eventually(() => expect(saw('create', 'a', 'caf\uf7e9.txt')).toBe(true));
    fs.mkdirSync(Buffer.from(`${root}/dir\xff`, 'latin1'));
    await eventually(() => expect(saw('create', 'dir\uf7ff')).toBe(true));
    fs.writeFileSync(Buffer.from(`${root}/dir\xff/in\xfe`, 'latin1'), 'i');
    await eventually(() => expect(saw('create', 'dir\uf7ff', 'in\uf7fe')).toBe(true));
  });

  it('gives up every watch and says so when a watch cannot be added', () => {
    const failing = new TreeWatcher({
      onEvents: () => {},
      onError: (err) => errors.push(err),
      watchFolder: () => {
        throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      },
    });
    failing.watch(root);
    failing.watch(at('a'));
    expect(errors.map((e) => e.message)).toEqual(['ENOSPC: System limit for number of file watchers reached']);
    expect(failing.active).toBe(false);
  });
});

describe('SearchIndex with its watcher', () => {
  it('finds what another process puts in a folder it makes, before and after the folder is watched', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tw-idx-')));
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tw-idx-data-'));
    const idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger });
    const found = (term: string) => [...idx.query(root, [term], false)].map((h) => h.rel);
    try {
      await idx.start();
      fs.mkdirSync(path.join(root, 'made', 'deep'), { recursive: true });
      fs.writeFileSync(path.join(root, 'made', 'deep', 'early.txt'), 'e');
      await eventually(() => expect(found('early')).toEqual(['made/deep/early.txt']));
      fs.writeFileSync(path.join(root, 'made', 'deep', 'later.txt'), 'l');
      await eventually(() => expect(found('later')).toEqual(['made/deep/later.txt']));
      fs.renameSync(path.join(root, 'made'), path.join(root, 'moved'));
      await eventually(() => expect(found('early')).toEqual(['moved/deep/early.txt']));
    } finally {
      await idx.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});

describe('SearchIndex when watching fails', () => {
  it('falls back to reconciling periodically and still finds changes', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tw-idx-')));
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tw-idx-data-'));
    fs.mkdirSync(path.join(root, 'sub'));
    let allowed = 1;
    const idx = new SearchIndex({
      root,
      dataDir: data,
      skipPaths: () => [],
      log: silentLogger,
      pollIntervalMs: 50,
      // The first folder is watched, the second is refused as when inotify's watches run out.
      watchFolder: (dir, listener) => {
        if (allowed-- <= 0) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
        return fs.watch(dir, { encoding: 'buffer', persistent: false }, listener);
      },
    });
    try {
      await idx.start();
      expect(idx.status().watching).toBe('polling');
      fs.writeFileSync(path.join(root, 'sub', 'later.txt'), 'l');
      await eventually(() => expect([...idx.query(root, ['later'], false)].map((h) => h.rel)).toEqual(['sub/later.txt']));
    } finally {
      await idx.close();
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(data, { recursive: true, force: true });
    }
  });
});
