/** A folder's sorted names are remembered only while the folder provably has not changed. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareNames } from '../../src/api/files.ts';
import { ascendingOrder, firstInOrder, inDirection, readFolderNames, type FolderNames } from '../../src/services/files/folder-names.ts';

let dir: string;

beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-names-')));
  for (const name of ['b10.txt', 'B2.txt', 'a.txt']) fs.writeFileSync(path.join(dir, name), '');
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.symlinkSync('a.txt', path.join(dir, 'link'));
});

afterEach(() => {
  vi.useRealTimers();
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
