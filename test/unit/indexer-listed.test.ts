/**
 * Folders the index's scan read in name order are marked listed with the stat they had
 * (indexer/store.ts `markListed`): the index answers for them only while the folder's stat is
 * that one and its children are exactly what the scan read.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished, afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareNames } from '../../src/api/files.ts';
import { silentLogger } from '../../src/services/context.ts';
import { SORTED_MIN } from '../../src/services/files/disk/tree-scan.ts';
import { type IndexOptions, SearchIndex } from '../../src/services/indexer/index.ts';

let root: string;
let data: string;
let idx: SearchIndex | undefined;

const at = (...parts: string[]) => path.join(root, ...parts);

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-listed-')));
  fs.mkdirSync(at('big', 'Sub'), { recursive: true });
  fs.mkdirSync(at('small'));
  const odd = ['a10', 'a9', 'a009', 'A9', 'B', 'b', 'é', 'e', 'É', 'f\u0301', '.dot', '-x', '_y', '10', '9'];
  for (const name of odd) fs.writeFileSync(at('big', name), '');
  // More than one scan batch (4,096 entries), as a large folder is.
  for (let i = 0; i < SORTED_MIN + 100; i++) fs.writeFileSync(at('big', `n${i}.log`), '');
  for (let i = 0; i < 10; i++) fs.writeFileSync(at('small', `s${i}`), '');
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

// A fresh data folder each time: a build, never a snapshot's load.
beforeEach(() => {
  data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-listed-data-'));
});

afterEach(async () => {
  await idx?.close();
  idx = undefined;
  vi.useRealTimers();
  fs.rmSync(data, { recursive: true, force: true });
});

/** Builds the index in the scan workers, the folders' last changes looking older than the racy window. */
async function built(extra: Partial<IndexOptions> = {}): Promise<SearchIndex> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });
  idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false, ...extra });
  await idx.start();
  return idx;
}

describe('folders listed by the index', () => {
  it('hold a large folder’s entries in the listing’s name order, and not the root or a small folder', async () => {
    const index = await built();
    const listed = index.listedFolder(at('big'), fs.statSync(at('big')))!;
    expect(listed).toBeDefined();
    const names: string[] = [];
    for (let c = listed.store.firstChild(listed.id); c !== -1; c = listed.store.nextSibling(c)) names.push(listed.store.name(c));
    expect(names).toEqual(fs.readdirSync(at('big')).sort(compareNames));
    expect(index.listedFolder(at('small'), fs.statSync(at('small')))).toBeUndefined();
    expect(index.listedFolder(root, fs.statSync(root))).toBeUndefined();
  });

  it('stop being listed once the folder’s stat differs, or once the index changes the folder’s entries', async () => {
    const index = await built();
    const before = fs.statSync(at('big'));
    fs.writeFileSync(at('big', 'new'), '');
    onTestFinished(() => fs.rmSync(at('big', 'new')));
    // Not watched: the index has not seen the change, only the folder's stat tells it.
    expect(index.listedFolder(at('big'), fs.statSync(at('big')))).toBeUndefined();
    expect(index.listedFolder(at('big'), before)).toBeDefined();
    await index.written(at('big', 'new'));
    expect(index.listedFolder(at('big'), before)).toBeUndefined();
  });

  it('are put in order and listed again once the changes made while fm runs have settled', async () => {
    const index = await built({ relistAfterMs: 0 });
    fs.writeFileSync(at('big', '0-live'), '');
    onTestFinished(() => fs.rmSync(at('big', '0-live')));
    await index.written(at('big', '0-live'));
    let listed = index.listedFolder(at('big'), fs.statSync(at('big')));
    for (let i = 0; i < 500 && !listed; i++) {
      await new Promise((r) => setTimeout(r, 10));
      listed = index.listedFolder(at('big'), fs.statSync(at('big')));
    }
    const names: string[] = [];
    for (let c = listed?.store.firstChild(listed.id) ?? -1; listed && c !== -1; c = listed.store.nextSibling(c)) names.push(listed.store.name(c));
    expect(names).toEqual(fs.readdirSync(at('big')).sort(compareNames));
  });

  it('are listed again after a restart from the snapshot, put in order again, unless a kind changed', async () => {
    const first = await built();
    const order = (listed: { store: { firstChild(id: number): number; nextSibling(id: number): number; name(id: number): string }; id: number }) => {
      const names: string[] = [];
      for (let c = listed.store.firstChild(listed.id); c !== -1; c = listed.store.nextSibling(c)) names.push(listed.store.name(c));
      return names;
    };
    const before = order(first.listedFolder(at('big'), fs.statSync(at('big')))!);
    await first.close();
    const restarted = () => new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    idx = restarted();
    await idx.start();
    await idx.settled();
    const again = idx.listedFolder(at('big'), fs.statSync(at('big')));
    expect(again && order(again)).toEqual(before);
    await idx.close();
    // Reconciled from the snapshot, the new name comes last: the folder is put in order again.
    fs.writeFileSync(at('big', '0-first'), '');
    idx = restarted();
    await idx.start();
    await idx.settled();
    const reordered = idx.listedFolder(at('big'), fs.statSync(at('big')));
    expect(reordered && order(reordered)).toEqual(fs.readdirSync(at('big')).sort(compareNames));
    await idx.close();
    // A file become a folder of the same name: a reconciled store keeps its old kind, so the folder is not listed.
    fs.rmSync(at('big', '0-first'));
    fs.rmSync(at('big', 'B'));
    fs.mkdirSync(at('big', 'B'));
    onTestFinished(() => {
      fs.rmdirSync(at('big', 'B'));
      fs.writeFileSync(at('big', 'B'), '');
    });
    idx = restarted();
    await idx.start();
    await idx.settled();
    expect(idx.listedFolder(at('big'), fs.statSync(at('big')))).toBeUndefined();
  });

  it('are not listed when the folder changed within the racy window before the scan', async () => {
    fs.writeFileSync(at('big', 'just-now'), '');
    onTestFinished(() => fs.rmSync(at('big', 'just-now')));
    idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
    expect(idx.listedFolder(at('big'), fs.statSync(at('big')))).toBeUndefined();
  });
});
