/**
 * The relist's sort in slices (indexer/sliced-order.ts): the same order as the listing's
 * (folder-names.ts `orderByKeys`), and never more than a run of names sorted between two chances
 * to give the event loop a turn.
 */
import { describe, expect, it } from 'vitest';
import { nameSortKey } from '../../src/api/files.ts';
import { orderByKeys } from '../../src/services/files/folder-names.ts';
import { orderInSlices, type Slicer, slicer } from '../../src/services/indexer/sliced-order.ts';

/** Names that tie on their sort key (case, accents, leading zeros) and numbers, in a shuffled order (fixed seed). */
function names(n: number): string[] {
  const stems = ['a', 'A', 'é', 'e', 'É', 'f\u0301', 'file-', 'File-', '.dot', '-x', '_y', ''];
  let seed = 7;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; // 32-bit arithmetic: exact, no short cycle
    return seed / 2 ** 32;
  };
  const out = new Set<string>();
  while (out.size < n) {
    const stem = stems[Math.floor(random() * stems.length)];
    const num = Math.floor(random() * 100_000);
    out.add(`${stem}${random() < 0.3 ? String(num).padStart(6, '0') : num}${random() < 0.5 ? '.txt' : ''}`);
  }
  return [...out];
}

/** A Slicer that records the most items reported done between two turns it gives (every 512 items). */
function counting(): { slice: Slicer; turns: () => number; most: () => number; done: () => number } {
  let total = 0;
  let since = 0;
  let most = 0;
  let turns = 0;
  const slice: Slicer = (done = 1) => {
    total += done;
    since += done;
    most = Math.max(most, since);
    if (since < 512) return undefined;
    since = 0;
    turns++;
    return Promise.resolve();
  };
  return { slice, turns: () => turns, most: () => most, done: () => total };
}

describe('orderInSlices', () => {
  it('orders as the listing does, for names in no order, in order, and in order but the last few', async () => {
    const shuffled = names(20_000);
    const keys = shuffled.map(nameSortKey);
    const expected = orderByKeys(shuffled, keys);
    expect(Array.from(await orderInSlices(shuffled, keys, counting().slice))).toEqual(expected);
    const sorted = expected.map((i) => shuffled[i]);
    const relisted = sorted.filter((_, i) => i % 97 !== 0).concat(sorted.filter((_, i) => i % 97 === 0));
    for (const list of [sorted, relisted, [], ['only']]) {
      const k = list.map(nameSortKey);
      expect(Array.from(await orderInSlices(list, k, counting().slice))).toEqual(orderByKeys(list, k));
    }
  });

  it('reports its work at most a run of 2,048 names at a time, so the loop gets a turn every ~2 ms', async () => {
    const list = names(20_000);
    const c = counting();
    await orderInSlices(list, list.map(nameSortKey), c.slice);
    expect(c.most()).toBeLessThanOrEqual(2048 + 511);
    expect(c.done()).toBeGreaterThanOrEqual(list.length);
    expect(c.turns()).toBeGreaterThan(list.length / 512);
  });
});

describe('slicer', () => {
  it('gives the event loop a turn once its time is up, and only then', async () => {
    let clock = 0;
    const slice = slicer(() => clock);
    for (let i = 0; i < 2048; i++) expect(slice()).toBeUndefined(); // the clock stands still: no turn
    clock += 5;
    let other = false;
    setImmediate(() => {
      other = true; // what waited for the loop: a request's callback
    });
    let p: Promise<void> | undefined;
    for (let i = 0; i < 512 && !p; i++) p = slice();
    expect(p).toBeDefined();
    await p;
    expect(other).toBe(true);
    for (let i = 0; i < 511; i++) expect(slice()).toBeUndefined(); // a new slice from the turn on
  });
});
