/** A patched folder's names in blocks (name-blocks.ts), checked against a sorted array made afresh after every patch. */
import { describe, expect, it } from 'vitest';
import { nameSortKey } from '../../src/api/files.ts';
import { decodeName, nameBytes } from '../../src/services/files/disk/names.ts';
import { DIRENT_DIR, DIRENT_LINK, DIRENT_OTHER } from '../../src/services/files/disk/dirents.ts';
import {
  ascendingOrder,
  folderSize,
  hasNameBytes,
  nameAt,
  nameBytesAt,
  orderByKeys,
  patchedFolder,
  type FolderNames,
} from '../../src/services/files/folder-names.ts';
import type { NameChange } from '../../src/services/files/disk/folder-watch.ts';
import { BLOCK, NameBlocks } from '../../src/services/files/name-blocks.ts';
import { takeMerged, visibleSplit } from '../../src/services/files/visible-split.ts';

let seed = 11;
const random = (n: number) => {
  seed = (seed * 48271) % 0x7fffffff;
  return seed % n;
};

/** Names of every shape the order has ties and traps for; a few not UTF-8 (bytes 0xff, 0xfe), as the watch decodes them. */
function someName(i: number): string {
  const stem = ['file', 'File', 'é', 'e\u0301', 'x', 'X0', 'ß', '_', '.hidden', 'z'][i % 10];
  if (i % 23 === 0) return decodeName(Buffer.from([0x61 + (i % 3), 0xff, 0xfe, 0x30 + (i % 10)]));
  return `${stem}${random(3) ? String(i) : String(i).padStart(6, '0')}`;
}

/** The folder's entries [name, kind] in ascendingOrder's order, sorted afresh. */
function sortedModel(model: Map<string, number>): Array<[string, number]> {
  const names = [...model.keys()];
  return orderByKeys(names, names.map(nameSortKey)).map((i) => [names[i], model.get(names[i])!]);
}

const shows = (name: string) => !name.startsWith('.');

function checkAgainst(folder: FolderNames, model: Map<string, number>): void {
  const want = sortedModel(model);
  expect(folderSize(folder)).toBe(want.length);
  const asc = ascendingOrder(folder);
  const got = Array.from(asc, (i): [string, number] => [nameAt(folder, i), folder.kinds[i]]);
  expect(got).toEqual(want);
  // The materialized arrays (a full listing's) agree, bytes included.
  expect(Array.from(asc, (i) => folder.names[i])).toEqual(want.map(([n]) => n));
  expect(hasNameBytes(folder)).toBe(true);
  for (let r = 0; r < want.length; r += 7) {
    const i = asc[r];
    const exact = nameBytesAt(folder, i);
    if (exact) expect(exact).toEqual(nameBytes(want[r][0]));
    else expect(/[\uf700-\uf7ff]/.test(want[r][0])).toBe(false);
    expect(folder.bytes?.[i]).toEqual(nameBytes(want[r][0]));
  }
  // The split carried over the patches is the split made afresh; pages across block edges read the same names.
  const carried = visibleSplit(folder, asc, 'view', shows);
  const fresh = visibleSplit({ names: folder.names, kinds: folder.kinds }, asc, 'view', shows);
  expect(Array.from(carried.dirs)).toEqual(Array.from(fresh.dirs));
  expect(Array.from(carried.files)).toEqual(Array.from(fresh.files));
  expect(Array.from(carried.links)).toEqual(Array.from(fresh.links));
  const visible = want.filter(([n]) => shows(n));
  const dirsFirst = [...visible.filter(([, k]) => k === DIRENT_DIR), ...visible.filter(([, k]) => k !== DIRENT_DIR && k !== DIRENT_LINK)];
  for (const offset of [0, BLOCK - 150, BLOCK, 2 * BLOCK - 1, Math.max(0, dirsFirst.length - 100)]) {
    const dirs = takeMerged(carried.dirs, [], offset, Math.min(300, carried.dirs.length - offset), true);
    const files = takeMerged(carried.files, [], Math.max(0, offset - carried.dirs.length), 300 - dirs.length, true);
    const page = dirs.concat(files).map((r) => nameAt(folder, asc[r]));
    expect(page, `offset ${offset}`).toEqual(dirsFirst.slice(offset, offset + 300).map(([n]) => n));
  }
}

describe('patched names in blocks (name-blocks.ts)', () => {
  it('equal a sorted array after random creates, deletes and kind changes, clustered and spread, blocks split and merged', () => {
    const model = new Map<string, number>();
    let next = 0;
    const names: string[] = [];
    for (; next < 5000; next++) {
      const name = someName(next);
      if (model.has(name)) continue;
      model.set(name, next % 11 === 0 ? DIRENT_DIR : next % 17 === 0 ? DIRENT_LINK : DIRENT_OTHER);
      names.push(name);
    }
    let folder: FolderNames = { names, kinds: Uint8Array.from(names, (n) => model.get(n)!) };
    visibleSplit(folder, ascendingOrder(folder), 'view', shows);
    for (let round = 0; round < 14; round++) {
      const changes: NameChange[] = [];
      const sorted = sortedModel(model);
      const kind = () => [DIRENT_OTHER, DIRENT_OTHER, DIRENT_DIR, DIRENT_LINK][random(4)];
      if (round % 4 === 1) {
        // 3,000 names in one place: the block they fall in grows past 2 × BLOCK and is split.
        for (let i = 0; i < 3000; i++) changes.push({ name: `file${String(round).padStart(3, '0')}-clustered-${i}`, kind: DIRENT_OTHER });
      } else if (round % 4 === 3) {
        // A whole run of ranks deleted (blocks emptied and merged), at the start, in the middle or at the end.
        const from = [0, Math.floor(sorted.length / 2), sorted.length - 2500][round % 3];
        for (let r = Math.max(0, from); r < Math.min(sorted.length, from + 2500); r++) changes.push({ name: sorted[r][0], kind: undefined });
      } else {
        for (let i = 0; i < 200; i++) {
          const pick = random(4);
          if (pick === 0) changes.push({ name: someName(next++), kind: kind() });
          else if (pick === 1 && sorted.length) changes.push({ name: sorted[random(sorted.length)][0], kind: undefined });
          else if (pick === 2 && sorted.length) changes.push({ name: sorted[random(sorted.length)][0], kind: kind() });
          else changes.push({ name: [' first', '~last', 'a', 'zzzz'][random(4)] + String(random(50)), kind: random(2) ? undefined : kind() });
        }
      }
      // The same name twice: the last change counts.
      if (changes.length) changes.push({ ...changes[0], kind: changes[0].kind === undefined ? DIRENT_OTHER : undefined });
      for (const c of changes) {
        if (c.kind === undefined) model.delete(c.name);
        else model.set(c.name, c.kind);
      }
      const before = folder;
      const beforeNames = Array.from(ascendingOrder(before), (i) => nameAt(before, i));
      folder = patchedFolder(folder, changes);
      checkAgainst(folder, model);
      // The version before is whole still (a request may be reading it).
      expect(Array.from(ascendingOrder(before), (i) => nameAt(before, i))).toEqual(beforeNames);
    }
  });

  it('reads names by rank across block edges, and patches an empty folder and one emptied', () => {
    const names = Array.from({ length: 3 * BLOCK + 5 }, (_, i) => `n${String(i).padStart(5, '0')}`);
    const blocks = NameBlocks.inOrder(names, new Uint8Array(names.length), Uint32Array.from(names.keys()));
    for (const r of [0, BLOCK - 1, BLOCK, 2 * BLOCK, 3 * BLOCK + 4]) expect(blocks.name(r)).toBe(names[r]);
    // Inserts at every block edge and at the end, removals of each block's first and last.
    const patched = blocks.patched({
      removed: [0, BLOCK - 1, BLOCK, 3 * BLOCK + 4],
      insertedAt: [0, BLOCK, 2 * BLOCK, 3 * BLOCK + 5],
      inserted: ['a', 'b', 'c', 'd'].map((name) => ({ name, kind: 1 })),
    });
    const want = [...names];
    want.splice(3 * BLOCK + 4, 1);
    want.splice(2 * BLOCK, 0, 'c');
    want.splice(BLOCK, 1, 'b');
    want.splice(BLOCK - 1, 1);
    want.splice(0, 1, 'a');
    want.push('d');
    expect(patched.toArrays().names).toEqual(want);
    expect(Array.from({ length: patched.length }, (_, r) => patched.name(r))).toEqual(want);
    expect(blocks.toArrays().names).toEqual(names); // the version before is unchanged
    // A block shrunk below a quarter is merged into the one before it when that has room: names and kinds stay paired.
    const kinds = Uint8Array.from(names, (_, i) => i % 3);
    const varied = NameBlocks.inOrder(names, kinds, Uint32Array.from(names.keys()));
    const gone = [...Array.from({ length: 600 }, (_, r) => r), ...Array.from({ length: 900 }, (_, r) => BLOCK + r)];
    const shrunk = varied.patched({ removed: gone, insertedAt: [], inserted: [] });
    const kept = [...names.keys()].filter((r) => !gone.includes(r));
    expect(shrunk.toArrays()).toEqual({ names: kept.map((r) => names[r]), kinds: Uint8Array.from(kept, (r) => kinds[r]) });
    expect(Array.from({ length: shrunk.length }, (_, r) => [shrunk.name(r), shrunk.kind(r)])).toEqual(kept.map((r) => [names[r], kinds[r]]));
    const empty = NameBlocks.inOrder([], new Uint8Array(0), []);
    const one = empty.patched({ removed: [], insertedAt: [0], inserted: [{ name: 'x', kind: 2 }] });
    expect([one.length, one.name(0), one.kind(0)]).toEqual([1, 'x', 2]);
    const none = one.patched({ removed: [0], insertedAt: [], inserted: [] });
    expect(none.length).toBe(0);
    expect(none.patched({ removed: [], insertedAt: [0], inserted: [{ name: 'y', kind: 0 }] }).name(0)).toBe('y');
  });
});
