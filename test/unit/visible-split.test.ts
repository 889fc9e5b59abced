/** A sorted folder's visible split, kept per view, and pages read from it by position. */
import { describe, expect, it } from 'vitest';
import { DIRENT_DIR, DIRENT_LINK, DIRENT_OTHER } from '../../src/services/files/disk/dirents.ts';
import type { FolderNames } from '../../src/services/files/folder-names.ts';
import { takeMerged, visibleSplit } from '../../src/services/files/visible-split.ts';

/** The merge of two ascending lists read in one direction, then sliced: what takeMerged must give. */
function naive(a: number[], b: number[], from: number, count: number, asc: boolean): number[] {
  const all = [...a, ...b].sort((x, y) => x - y);
  if (!asc) all.reverse();
  return all.slice(from, from + Math.max(0, count));
}

describe('takeMerged', () => {
  it('equals slicing the merged list, in both directions, at every offset', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let round = 0; round < 200; round++) {
      const a: number[] = [];
      const b: number[] = [];
      for (let r = 0; r < 40; r++) if (random() < 0.6) (random() < 0.8 ? a : b).push(r);
      if (round % 4 === 0) b.length = 0; // the common case: no links
      const from = Math.floor(random() * 45);
      const count = Math.floor(random() * 12) - 1;
      for (const asc of [true, false]) {
        expect(takeMerged(Uint32Array.from(a), b, from, count, asc), JSON.stringify({ a, b, from, count, asc })).toEqual(naive(a, b, from, count, asc));
      }
    }
  });
});

describe('visibleSplit', () => {
  const folder: FolderNames = {
    names: ['c', 'a-dir', 'b-link', '.hidden', 'd'],
    kinds: Uint8Array.from([DIRENT_OTHER, DIRENT_DIR, DIRENT_LINK, DIRENT_OTHER, DIRENT_OTHER]),
  };
  const ascending = Uint32Array.from([3, 1, 2, 0, 4]); // .hidden a-dir b-link c d

  it('gives the ranks of the visible folders, files and links', () => {
    const split = visibleSplit(folder, ascending, 'all', () => true);
    expect([...split.dirs]).toEqual([1]);
    expect([...split.files]).toEqual([0, 3, 4]);
    expect([...split.links]).toEqual([2]);
  });

  it('is kept per view: the same key gives the kept split, another key its own', () => {
    const noDots = (name: string) => !name.startsWith('.');
    const first = visibleSplit(folder, ascending, 'no-dots', noDots);
    expect(visibleSplit(folder, ascending, 'no-dots', () => true)).toBe(first);
    expect([...first.files]).toEqual([3, 4]);
    expect([...visibleSplit(folder, ascending, 'only-d', (n) => n === 'd').files]).toEqual([4]);
  });
});
