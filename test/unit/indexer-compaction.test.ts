import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACT_MIN_DEAD } from '../../src/services/indexer/compact.ts';
import { SearchIndex } from '../../src/services/indexer/index.ts';
import { silentLogger } from '../../src/services/context.ts';

describe('SearchIndex compaction', () => {
  let root: string;
  let data: string;
  let idx: SearchIndex;
  beforeEach(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-compact-')));
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-idx-compact-data-'));
    fs.mkdirSync(path.join(root, 'docs'));
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(root, 'docs', `match-${i}.txt`), 'x'.repeat(i));
    fs.writeFileSync(path.join(root, 'a.txt'), 'flip');
    idx = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    await idx.start();
  });
  afterEach(async () => {
    await idx.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(data, { recursive: true, force: true });
  });

  /** Renames a.txt ⇄ b.txt `n` times, telling the index as fm's file operations do. */
  async function flip(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const [from, to] = i % 2 ? ['b.txt', 'a.txt'] : ['a.txt', 'b.txt'];
      fs.renameSync(path.join(root, from), path.join(root, to));
      await idx.moved(path.join(root, from), path.join(root, to));
    }
    await idx.settled();
  }

  it('keeps the removed entries of endless renames bounded, and answers as before', async () => {
    await flip(3 * COMPACT_MIN_DEAD + 1);
    const { store } = idx.folderEntries(root)!;
    expect(store.count - store.live).toBeLessThanOrEqual(COMPACT_MIN_DEAD);
    expect(idx.status().entries).toBe(52);
    expect([...idx.query(root, ['.txt'], false)].map((h) => h.rel).filter((r) => !r.startsWith('docs/'))).toEqual(['b.txt']);
    expect([...idx.query(root, ['match-4'], false)].map((h) => h.rel).sort()).toEqual([
      'docs/match-4.txt',
      'docs/match-40.txt',
      'docs/match-41.txt',
      'docs/match-42.txt',
      'docs/match-43.txt',
      'docs/match-44.txt',
      'docs/match-45.txt',
      'docs/match-46.txt',
      'docs/match-47.txt',
      'docs/match-48.txt',
      'docs/match-49.txt',
    ]);
    expect(idx.treeUsage(path.join(root, 'docs'))).toEqual({ bytes: (49 * 50) / 2, files: 50 });
    expect(idx.treeUsage(root)?.bytes).toBe((49 * 50) / 2 + 4);
  });

  it('lets a search that started before a compaction finish on the entries it started with', async () => {
    const before = idx.folderEntries(root)!.store;
    const search = idx.query(root, ['match'], false);
    const first = search.next();
    await flip(COMPACT_MIN_DEAD + 1);
    expect(idx.folderEntries(root)!.store).not.toBe(before);
    const rest = [...search].map((h) => h.rel);
    const all = [first.value!.rel, ...rest].sort();
    expect(all).toEqual(Array.from({ length: 50 }, (_, i) => `docs/match-${i}.txt`).sort());
  });
});
