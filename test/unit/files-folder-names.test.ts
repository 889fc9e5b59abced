/** A folder's sorted names are remembered only while the folder provably has not changed. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareNames } from '../../src/api/files.ts';
import { readKindsWithBytes } from '../../src/services/files/disk/dirents.ts';
import { visibleSplit } from '../../src/services/files/visible-split.ts';
import { watchFoldersWith, type WatchOne } from '../../src/services/files/disk/folder-watch.ts';
import {
  ascendingOrder,
  firstInOrder,
  inDirection,
  patchedFolder,
  patchNamesFor,
  readFolderNames,
  type FolderNames,
} from '../../src/services/files/folder-names.ts';

let dir: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-names-')));
  for (const name of ['b10.txt', 'B2.txt', 'a.txt']) fs.writeFileSync(path.join(dir, name), '');
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.symlinkSync('a.txt', path.join(dir, 'link'));
});

afterEach(() => {
  vi.useRealTimers();
  watchFoldersWith({});
  patchNamesFor(undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Makes the folder's last change look older than the racy window (ctime cannot be set). */
const later = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 });

describe('readFolderNames', () => {
  it('gives the names in the shared name order with their d_type kinds', async () => {
    const read = await readFolderNames(dir, fs.statSync(dir));
    const order = Array.from(ascendingOrder(read));
    expect(order.map((i) => read.names[i])).toEqual(['a.txt', 'B2.txt', 'b10.txt', 'link', 'sub']);
    expect(order.map((i) => read.kinds[i])).toEqual([0, 0, 0, 2, 1]);
  });

  it('answers from memory while the folder keeps its stat, and reads again once it changes', async () => {
    later();
    const before = fs.statSync(dir);
    await readFolderNames(dir, before);
    fs.writeFileSync(path.join(dir, 'c.txt'), '');
    // Given the stat from before the change, the remembered names come back: proof they were kept.
    expect((await readFolderNames(dir, before)).names).not.toContain('c.txt');
    expect((await readFolderNames(dir, fs.statSync(dir))).names).toContain('c.txt');
    fs.rmSync(path.join(dir, 'a.txt'));
    const read = await readFolderNames(dir, fs.statSync(dir));
    expect(Array.from(ascendingOrder(read), (i) => read.names[i])).toEqual(['B2.txt', 'b10.txt', 'c.txt', 'link', 'sub']);
  });

  it('never keeps a folder changed within the racy window: a change in the same clock tick could keep its stat', async () => {
    const before = fs.statSync(dir);
    await readFolderNames(dir, before);
    fs.writeFileSync(path.join(dir, 'c.txt'), '');
    expect((await readFolderNames(dir, before)).names).toContain('c.txt');
  });
});

/** A folder's entries in ascending order: name, kind and bytes (where not UTF-8). */
function listed(folder: FolderNames): Array<[string, number, string | undefined]> {
  return Array.from(ascendingOrder(folder), (i) => [folder.names[i], folder.kinds[i], folder.bytes?.[i]?.toString('hex')]);
}
const freshly = async (d: string) => listed(await readKindsWithBytes(d)).map(([n, k, b]) => [n, k, b && /[^\x20-\x7e]/.test(n) ? b : undefined]);
const asRead = (folder: FolderNames) => listed(folder).map(([n, k, b]) => [n, k, b && /[^\x20-\x7e]/.test(n) ? b : undefined]);

describe('readFolderNames on a watched folder', () => {
  it('patches the remembered names with the entries created, removed and renamed since the read, not reading the folder again', async () => {
    await readFolderNames(dir, fs.statSync(dir));
    fs.writeFileSync(path.join(dir, 'b3.txt'), '');
    fs.rmSync(path.join(dir, 'a.txt'));
    fs.renameSync(path.join(dir, 'B2.txt'), path.join(dir, 'zz.txt'));
    fs.mkdirSync(path.join(dir, 'A-dir'));
    fs.rmSync(path.join(dir, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'sub'), ''); // a folder replaced by a file: its kind follows
    fs.writeFileSync(Buffer.from(`${dir}/b\xff.txt`, 'latin1'), ''); // not UTF-8
    const patched = await readFolderNames(dir, fs.statSync(dir));
    // A fresh read comes unsorted; the patched names come sorted already (the proof they were patched).
    expect(patched.ascending).toBeDefined();
    expect(asRead(patched)).toEqual(await freshly(dir));
    fs.rmSync(Buffer.from(`${dir}/b\xff.txt`, 'latin1'));
    fs.writeFileSync(path.join(dir, 'b10.txt'), 'rewritten');
    expect(asRead(await readFolderNames(dir, fs.statSync(dir)))).toEqual(await freshly(dir));
  });

  it('reads the folder again when an event names no entry, or names one as a string', async () => {
    let deliver: ((event: string, name: Buffer | string | null) => void) | undefined;
    const watch: WatchOne = (d, onChange) => {
      deliver = onChange;
      return fs.watch(d, { persistent: false }, () => {}); // the test delivers the events
    };
    for (const name of [null, 'c.txt']) {
      watchFoldersWith({ watch });
      await readFolderNames(dir, fs.statSync(dir));
      fs.writeFileSync(path.join(dir, `c${name}.txt`), '');
      deliver?.('rename', name);
      const read = await readFolderNames(dir, fs.statSync(dir));
      expect(read.ascending, 'read again, not patched').toBeUndefined();
      expect(read.names).toContain(`c${name}.txt`);
    }
  });

  it('trusts the patched names for a bounded time: events lost (inotify queue overflow) show once it passes', async () => {
    watchFoldersWith({ watch: (d) => fs.watch(d, { persistent: false }, () => {}) }); // events never arrive
    await readFolderNames(dir, fs.statSync(dir));
    fs.writeFileSync(path.join(dir, 'lost.txt'), '');
    expect((await readFolderNames(dir, fs.statSync(dir))).names, 'within the bound, as designed').not.toContain('lost.txt');
    later();
    expect((await readFolderNames(dir, fs.statSync(dir))).names).toContain('lost.txt');
  });

  it('reads the folder again once too many names changed', async () => {
    await readFolderNames(dir, fs.statSync(dir));
    for (let i = 0; i < 4200; i++) fs.writeFileSync(path.join(dir, `n${i}`), '');
    const read = await readFolderNames(dir, fs.statSync(dir));
    expect(read.ascending, 'read again, not patched').toBeUndefined();
    expect(read.names.length).toBe(4205);
  });
});

describe('patchedFolder', () => {
  it('inserts and removes names in ascendingOrder’s order exactly, and keeps kinds and bytes', () => {
    const stems = ['a', 'A', 'b', 'é', 'e\u0301', 'File', 'file', 'x0', 'x00', 'x10', 'x9', '\uf7e9t', 'Z', 'ß', '_', '-'];
    const all = [...new Set(stems.flatMap((s, i) => [`${s}${i}`, `${s}-${i * 7}.txt`, `${s}${String(i).padStart(4, '0')}`, s.toUpperCase()]))];
    const kindOf = (name: string) => name.length % 3;
    const pick = (keep: (i: number) => boolean) => {
      const names = all.filter((_, i) => keep(i)).reverse();
      return { names, kinds: Uint8Array.from(names, kindOf) };
    };
    const before = pick((i) => i % 3 !== 0);
    const after = pick((i) => i % 2 !== 0);
    const changes = all.map((name, i) => ({ name, kind: i % 2 !== 0 ? kindOf(name) : undefined }));
    // Some twice (the last one counts), in any order, some without effect.
    changes.push({ name: all[1], kind: undefined }, { name: all[1], kind: kindOf(all[1]) });
    changes.reverse();
    const patched = patchedFolder(before, changes);
    const namesAndKinds = (f: FolderNames) => listed(f).map(([n, k]) => [n, k]);
    expect(namesAndKinds(patched)).toEqual(namesAndKinds(after));
    expect(Array.from(patched.ascending ?? [])).toEqual(patched.names.map((_, i) => i));
    expect(
      patchedFolder(after, [
        { name: all[1], kind: kindOf(all[1]) },
        { name: all[0], kind: undefined },
      ]),
    ).toBe(after);
    const withRaw = patchedFolder(after, [{ name: 'b\uf7ff.txt', kind: 0 }]);
    expect(withRaw.bytes?.[withRaw.names.indexOf('b\uf7ff.txt')]?.toString('hex')).toBe('62ff2e747874');
    expect(withRaw.bytes?.[withRaw.names.indexOf(all[1])]?.toString()).toBe(all[1]);
  });
});

describe('patchedFolder and the visible splits', () => {
  it('carries a split over to the patched names exactly as one made afresh', () => {
    const names = Array.from({ length: 300 }, (_, i) => `${i % 7 === 0 ? '.' : ''}n${i}`);
    const folder: FolderNames = { names, kinds: Uint8Array.from(names, (_, i) => i % 3) };
    const shows = (name: string) => !name.startsWith('.');
    const splitOf = (f: FolderNames) => visibleSplit(f, ascendingOrder(f), 'view', shows);
    splitOf(folder);
    let current = folder;
    for (let round = 0; round < 4; round++) {
      const changes = [
        ...Array.from({ length: 20 }, (_, i) => ({ name: `n${round * 40 + i * 2}`, kind: undefined })), // removed
        ...Array.from({ length: 15 }, (_, i) => ({ name: `${i % 4 === 0 ? '.' : ''}m${round}-${i}`, kind: i % 3 })), // added
        { name: `n${round * 40 + 1}`, kind: 1 }, // kind changed (or added back)
        { name: 'a-first', kind: round % 3 },
        { name: 'zz-last', kind: round === 3 ? undefined : 2 },
      ];
      current = patchedFolder(current, changes);
      const carried = splitOf(current);
      const fresh = visibleSplit({ names: current.names, kinds: current.kinds }, ascendingOrder(current), 'view', shows);
      expect(Array.from(carried.dirs), `round ${round}`).toEqual(Array.from(fresh.dirs));
      expect(Array.from(carried.files), `round ${round}`).toEqual(Array.from(fresh.files));
      expect(Array.from(carried.links), `round ${round}`).toEqual(Array.from(fresh.links));
    }
  });
});

describe('ascendingOrder', () => {
  it('is the contract order (compareNames) for numbers, cases, accents, escapes and names equal but for case', () => {
    const stems = ['a', 'A', 'b', 'é', 'e\u0301', 'File', 'file', 'x0', 'x00', 'x10', 'x9', '\uf7e9t', 'Z', 'ß', '', '_', '-'];
    const names = stems.flatMap((s, i) => [`${s}${i}`, `${s}-${i * 7}.txt`, `${s}${String(i).padStart(4, '0')}`, s || `.${i}`, s.toUpperCase()]);
    const unique = [...new Set(names)];
    const folder: FolderNames = { names: unique, kinds: new Uint8Array(unique.length) };
    expect(Array.from(ascendingOrder(folder), (i) => unique[i])).toEqual([...unique].sort(compareNames));
  });
});

describe('firstInOrder', () => {
  it('gives the first entries of any subset in the full order, both ways, without sorting the folder', () => {
    // Numbers, cases, accents, leading zeros, a non-UTF-8 name's escape, names equal but for case.
    const stems = ['a', 'A', 'b', 'é', 'e', 'File', 'file', 'x0', 'x00', 'x10', 'x9', '\uf7e9t', 'Z', 'ß', ''];
    const names = stems.flatMap((s, i) => [`${s}${i}`, `${s}-${i * 7}.txt`, `${s}${String(i).padStart(4, '0')}`, s || `.${i}`]);
    const folder: FolderNames = { names, kinds: new Uint8Array(names.length) };
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    for (let round = 0; round < 20; round++) {
      const subset = names.map((_, i) => i).filter(() => random() < 0.6);
      const copy: FolderNames = { names, kinds: folder.kinds };
      for (const asc of [true, false]) {
        const full = inDirection(ascendingOrder(copy), asc).filter((i) => subset.includes(i));
        for (const k of [1, 5, 17, subset.length, subset.length + 3]) {
          expect(firstInOrder(folder, subset, k, asc).map((i) => names[i])).toEqual(full.slice(0, k).map((i) => names[i]));
        }
      }
    }
    expect(folder.ascending).toBeUndefined();
    // The full order sorted afterwards, from the keys the selection computed, is the same.
    expect(Array.from(ascendingOrder(folder))).toEqual(Array.from(ascendingOrder({ names, kinds: folder.kinds })));
    expect(folder.keys).toBeUndefined();
  });
});
