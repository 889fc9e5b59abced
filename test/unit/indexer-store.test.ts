import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EntryStore, ROOT_ID } from '../../src/services/indexer/store.ts';
import { columnLength } from '../../src/services/indexer/columns.ts';
import { loadSnapshot, saveSnapshot } from '../../src/services/indexer/persist.ts';
import { nameMatcher, namedFilter } from '../../src/services/indexer/match.ts';
import { Parents } from '../../src/services/indexer/parents.ts';

const file = (name: string, size = 1, mtimeMs = 1000.25) => ({ name, size, mtimeMs, isDir: false, isLink: false, type: 'text' as const });
const dir = (name: string) => ({ name, size: 0, mtimeMs: 1700000000123.5, isDir: true, isLink: false, type: '' as const });

/** Every live entry as "path size mtime", depth first in child order. */
function dump(s: EntryStore): string[] {
  const out: string[] = [];
  const walk = (id: number) => {
    for (const c of s.childIds(id)) {
      out.push(`${s.pathOf(c)} ${s.isDir(c) ? `dir ${s.treeSizeOf(c)}/${s.treeCountOf(c)}` : s.sizeOf(c)} ${s.mtime[c]}`);
      walk(c);
    }
  };
  walk(ROOT_ID);
  return out;
}

describe('EntryStore (packed names and sibling lists)', () => {
  it('keeps children in the order they were added, through removals and later additions', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const ids = ['one', 'two', 'three', 'four'].map((n) => s.add(a, file(n)));
    s.remove(ids[0]);
    s.remove(ids[3]);
    s.remove(ids[2]);
    const five = s.add(a, file('five'));
    expect(s.childIds(a).map((id) => s.name(id))).toEqual(['two', 'five']);
    expect(s.child(a, 'five')).toBe(five);
    expect(s.child(a, 'three')).toBe(-1);
    expect(s.childIds(five)).toEqual([]);
    expect(s.child(five, 'x')).toBe(-1);
  });

  it("keeps sibling order when a folder's ids are not consecutive (entries of two folders interleaved, removed in the middle)", () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const b = s.add(ROOT_ID, dir('b'));
    const inA: number[] = [];
    for (let i = 0; i < 6; i++) {
      inA.push(s.add(a, file(`a${i}`)));
      s.add(b, file(`b${i}`));
      if (i % 2) s.add(b, file(`b${i}+`));
    }
    const sub = s.add(a, dir('sub'));
    for (let i = 0; i < 3; i++) s.add(sub, file(`s${i}`));
    const after = s.add(a, file('after'));
    s.remove(inA[2]);
    s.remove(inA[3]);
    s.remove(sub);
    expect(s.childIds(a).map((id) => s.name(id))).toEqual(['a0', 'a1', 'a4', 'a5', 'after']);
    expect(s.childIds(b).map((id) => s.name(id))).toEqual(['b0', 'b1', 'b1+', 'b2', 'b3', 'b3+', 'b4', 'b5', 'b5+']);
    expect(s.childIds(ROOT_ID)).toEqual([a, b]);
    expect(s.nextSibling(after)).toBe(-1);
    s.remove(after);
    s.add(a, file('last'));
    expect(s.childIds(a).map((id) => s.name(id))).toEqual(['a0', 'a1', 'a4', 'a5', 'last']);
    expect(s.treeCountOf(a)).toBe(5);
  });

  it('looks up and spells paths of names of any length and script, and names that are not UTF-8', () => {
    const s = new EntryStore();
    const names = ['caf\uf7e9.txt', 'ünïcode-名前.md', '🎉', 'x'.repeat(255), 'a', 'ab', 'ba', '\uf7ff'];
    const d = s.add(ROOT_ID, dir('d\uf7fe'));
    const ids = names.map((n) => s.add(d, file(n)));
    names.forEach((n, i) => {
      expect(s.name(ids[i])).toBe(n);
      expect(s.lookup(`/d\uf7fe/${n}`)).toBe(ids[i]);
      expect(s.pathOf(ids[i])).toBe(`/d\uf7fe/${n}`);
    });
    // Same bytes in a different length or order never match.
    expect(s.lookup('/d\uf7fe/abc')).toBe(-1);
    expect(s.lookup('/d\uf7fe/b')).toBe(-1);
    expect(s.lookup('/d\uf7fe/caf\u00e9.txt')).toBe(-1);
  });

  it('answers lookups and keeps sibling order in large folders (child-lookup.ts) through random adds, removes and reorders', () => {
    const s = new EntryStore();
    const big = s.add(ROOT_ID, dir('big'));
    const other = s.add(ROOT_ID, dir('other'));
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Escaped bytes of names that are not UTF-8 (names.ts's string form), other scripts, and a lone surrogate.
    const spell = (i: number) => [`f${i}`, `caf\uf7e9-${i}`, `名前-${i}`, `🎉${i}`, `x\ud800${i}`][i % 5];
    const model: Array<{ id: number; name: string }> = [];
    let next = 0;
    const add = () => {
      const name = spell(next++);
      model.push({ id: s.add(big, file(name)), name });
      if (rand(3) === 0) s.add(other, file(`o${next}`)); // ids of the two folders interleave
    };
    const removeAt = (k: number) => {
      s.remove(model[k].id);
      model.splice(k, 1);
    };
    const check = () => {
      expect(s.childIds(big)).toEqual(model.map((m) => m.id));
      for (let k = 0; k < 50; k++) {
        const m = model[rand(model.length)];
        expect(s.child(big, m.name)).toBe(m.id);
      }
      expect(s.child(big, `gone-${next}`)).toBe(-1);
    };
    for (let i = 0; i < 3000; i++) add();
    expect(s.child(big, 'not-there')).toBe(-1); // a walk of 3,000: the folder's lookup is made
    check();
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 400; i++) {
        const r = rand(10);
        if (r < 4) add();
        else if (r < 6) removeAt(0);
        else if (r < 7) removeAt(model.length - 1);
        else removeAt(rand(model.length));
      }
      check();
      if (round % 2 === 1) {
        // Put in another order, as the relist does; later unlinks need the new previous siblings.
        for (let k = model.length - 1; k > 0; k--) {
          const j = rand(k + 1);
          [model[k], model[j]] = [model[j], model[k]];
        }
        s.relinkChildren(big, Int32Array.from(model.map((m) => m.id)));
        check();
      }
    }
    // A removed name added again gets its new id; a removed folder's lookup goes with it.
    const again = model[5];
    removeAt(5);
    expect(s.child(big, again.name)).toBe(-1);
    const id = s.add(big, file(again.name));
    model.push({ id, name: again.name });
    check();
    const inner = s.add(big, dir('inner'));
    for (let i = 0; i < 1500; i++) s.add(inner, file(`i${i}`));
    expect(s.child(inner, 'none')).toBe(-1);
    expect(s.child(inner, 'i1499')).toBeGreaterThan(0);
    s.remove(inner);
    expect(s.lookup('/big/inner/i1499')).toBe(-1);
    const inner2 = s.add(big, dir('inner'));
    expect(s.child(inner2, 'i1499')).toBe(-1);
    expect(s.lookup('/big/inner')).toBe(inner2);
  });

  it('keeps sizes of 4 GiB and more exact, in the file and in every total above it', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const big = s.add(a, file('big', 5 * 2 ** 32 + 3));
    s.add(a, file('small', 7));
    expect(s.sizeOf(big)).toBe(5 * 2 ** 32 + 3);
    expect(s.treeSizeOf(ROOT_ID)).toBe(5 * 2 ** 32 + 10);
    s.update(big, 2 ** 32 - 1, 2000);
    expect(s.sizeOf(big)).toBe(2 ** 32 - 1);
    expect(s.treeSizeOf(a)).toBe(2 ** 32 + 6);
    s.update(big, 3, 2000);
    expect(s.treeSizeOf(a)).toBe(10);
    expect(s.sizeOf(a)).toBe(0);
  });

  it('grows past its first capacity without losing names or links', () => {
    const s = new EntryStore();
    let parent = ROOT_ID;
    for (let d = 0; d < 300; d++) {
      parent = s.add(parent, dir(`level-${d}`));
      for (let f = 0; f < 10; f++) s.add(parent, file(`f${d}-${f}-${'n'.repeat(d % 40)}`));
    }
    expect(s.live).toBe(1 + 300 * 11);
    const deepest = s.child(parent, `f299-9-${'n'.repeat(299 % 40)}`);
    expect(s.pathOf(deepest).split('/').length).toBe(302);
    expect(s.treeCountOf(ROOT_ID)).toBe(3300);
    expect(s.lookup(s.pathOf(deepest))).toBe(deepest);
  });

  it('keeps every column whole past the size where its arrays jump to mapped lengths (columns.ts)', () => {
    const s = new EntryStore();
    // 9,000 folders of 8 files: past 64 KiB in every column, one-byte flags and folder totals included.
    const folders: number[] = [];
    for (let d = 0; d < 9000; d++) {
      const folder = s.add(ROOT_ID, dir(`d${d}`));
      folders.push(folder);
      for (let f = 0; f < 8; f++) s.add(folder, file(`f${d}-${f}.txt`, d * 8 + f, d + f / 8));
    }
    expect(s.live).toBe(1 + 9000 * 9);
    for (const d of [0, 7281, 8191, 8192, 8999]) {
      const folder = folders[d];
      expect(s.isDir(folder)).toBe(true);
      expect(s.treeCountOf(folder)).toBe(8);
      expect(s.treeSizeOf(folder)).toBe(8 * (d * 8) + 28);
      const kids = s.childIds(folder);
      expect(kids.map((id) => s.name(id))).toEqual(Array.from({ length: 8 }, (_, f) => `f${d}-${f}.txt`));
      expect(kids.map((id) => [s.isDir(id), s.typeOf(id), s.sizeOf(id), s.mtime[id]])).toEqual(
        Array.from({ length: 8 }, (_, f) => [false, 'text', d * 8 + f, d + f / 8]),
      );
    }
    expect(s.treeCountOf(ROOT_ID)).toBe(9000 * 9);
  });

  it('finds every name by its length and block start, long names (255 bytes and more) included, across growth', () => {
    const s = new EntryStore();
    const folder = s.add(ROOT_ID, dir('d'));
    const lengths = [0, 1, 254, 255, 256, 700];
    // Escaped bytes (3 bytes each in UTF-8) make the longest names: 255 of them are 765 bytes.
    const nameOf = (i: number) => (i % 97 === 0 ? '\uf7e9'.repeat(255) : `${i}-${'n'.repeat(lengths[i % 6])}`.slice(0, Math.max(1, lengths[i % 6])));
    const ids: number[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const name = nameOf(i);
      if (seen.has(name)) continue;
      seen.add(name);
      ids.push(s.add(folder, { ...file(name), size: i }));
    }
    for (const id of ids) {
      const name = nameOf(s.sizeOf(id));
      expect(s.name(id)).toBe(name);
      expect(s.nameLength(id)).toBe(Buffer.byteLength(name));
    }
    for (const id of ids.filter((_, k) => k % 53 === 0)) expect(s.child(folder, s.name(id))).toBe(id);
  });

  it('sizes column arrays of more than 64 KiB to at least 33 MiB, so malloc maps them', () => {
    expect(columnLength(4, 1024)).toBe(1024);
    expect(columnLength(1, 64 * 1024)).toBe(64 * 1024);
    expect(columnLength(1, 64 * 1024 + 1)).toBe(33 * 2 ** 20);
    expect(columnLength(8, 8193)).toBe((33 * 2 ** 20) / 8);
    expect(columnLength(4, 10_000_000)).toBe(10_000_000);
  });
});

describe('matching names on the packed bytes', () => {
  const s = new EntryStore();
  const names = ['Report-2024.PDF', 'report.txt', '\u212Aelvin.txt', 'ÄRGER.md', 'caf\uf7e9.txt', 'x'];
  const ids = names.map((n) => s.add(ROOT_ID, file(n)));
  const matching = (terms: string[], caseSensitive: boolean) => {
    const m = nameMatcher(s, terms, caseSensitive);
    return ids.filter((id) => m(id)).map((id) => s.name(id));
  };

  it('ignores case as toLowerCase does, for ASCII names and the others', () => {
    expect(matching(['report'], false)).toEqual(['Report-2024.PDF', 'report.txt']);
    expect(matching(['.pdf', 'xyz'], false)).toEqual(['Report-2024.PDF']);
    // The Kelvin sign lower-cases to an ASCII "k"; "Ä" to "ä".
    expect(matching(['kelvin'], false)).toEqual(['\u212Aelvin.txt']);
    expect(matching(['ärg'], false)).toEqual(['ÄRGER.md']);
  });

  it('matches exact bytes when case matters, escaped bytes included', () => {
    expect(matching(['report'], true)).toEqual(['report.txt']);
    expect(matching(['PDF'], true)).toEqual(['Report-2024.PDF']);
    expect(matching(['f\uf7e9.'], true)).toEqual(['caf\uf7e9.txt']);
    expect(matching(['f\uf7e8.'], true)).toEqual([]);
    expect(matching(['txt.'], true)).toEqual([]);
  });

  it('keeps the same names when filtering blocks of candidates, live ones only, in order', () => {
    const more = ['KELVIN-2', 'caf\uf7e9-REPORT', 'reportage', 'gone-report', 'Kaffee', 'ärgerlich.txt', 'nothing'].map((n) => s.add(ROOT_ID, file(n)));
    s.remove(more[3]);
    const all = [...ids, ...more];
    const terms = [['report'], ['REPORT'], ['kelvin'], ['ärg'], ['f\uf7e9'], ['pdf', 'kaf'], ['zzz'], ['e']];
    for (const caseSensitive of [false, true]) {
      for (const t of terms) {
        const m = nameMatcher(s, t, caseSensitive);
        const expected = all.filter((id) => !s.isDead(id) && m(id));
        for (const size of [1, 3, all.length]) {
          const got: number[] = [];
          const filter = namedFilter(s, t, caseSensitive);
          for (let from = 0; from < all.length; from += size) {
            const block = Int32Array.from(all.slice(from, from + size));
            got.push(...block.subarray(0, filter(block, block.length)));
          }
          expect(got, `${t} ${caseSensitive} ${size}`).toEqual(expected);
        }
      }
    }
    expect(namedFilter(s, ['report'], false)(Int32Array.from(more), more.length)).toBe(2);
  });
});

describe('snapshots of the packed store', () => {
  let data: string;
  beforeEach(() => {
    data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-store-'));
  });
  afterEach(() => fs.rmSync(data, { recursive: true, force: true }));

  it('round-trip every live entry exactly (names as bytes, big sizes, fractional times), tombstones left out', async () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a\uf7e9'));
    s.add(a, file('caf\uf7e9.txt', 12, 1234.567));
    const gone = s.add(a, dir('gone'));
    s.add(gone, file('inside'));
    s.add(a, file('huge', 2 ** 40));
    s.add(ROOT_ID, file('名前', 0));
    s.remove(gone);
    const snapshot = path.join(data, 'idx.bin');
    await saveSnapshot(s, '/root', snapshot);
    const seen: string[] = [];
    const loaded = loadSnapshot(snapshot, '/root', (_id, name) => seen.push(name))!;
    expect(dump(loaded)).toEqual(dump(s));
    expect(loaded.live).toBe(s.live);
    expect(seen.sort()).toEqual(['a\uf7e9', 'caf\uf7e9.txt', 'huge', '名前'].sort());
  });

  it('round-trip a snapshot many times the size of the reading buffer, records across its edges', async () => {
    const s = new EntryStore();
    for (let d = 0; d < 20; d++) {
      const folder = s.add(ROOT_ID, dir(`folder-${d}`));
      for (let f = 0; f < 1000; f++) s.add(folder, file(`${'n'.repeat((d * 7 + f) % 300)}-${f}`, f, f + 0.5));
    }
    const snapshot = path.join(data, 'big.bin');
    let waits = 0;
    await saveSnapshot(s, '/root', snapshot, async () => void waits++);
    expect(fs.statSync(snapshot).size).toBeGreaterThan(2 * 1024 * 1024);
    // Before each 256 KiB chunk (searches go first: search-activity.ts).
    expect(waits).toBeGreaterThanOrEqual(Math.ceil(fs.statSync(snapshot).size / (256 * 1024)));
    const loaded = loadSnapshot(snapshot, '/root', () => {})!;
    expect(dump(loaded)).toEqual(dump(s));
    // Written folder by folder: each folder's entries get consecutive ids (their sibling links are implied).
    for (const folder of [ROOT_ID, ...loaded.childIds(ROOT_ID)]) {
      const kids = loaded.childIds(folder);
      expect(kids).toEqual(kids.map((_, i) => kids[0] + i));
    }
  });

  it('are ignored when written by an older version or damaged', async () => {
    const s = new EntryStore();
    s.add(ROOT_ID, file('x'));
    const snapshot = path.join(data, 'idx.bin');
    await saveSnapshot(s, '/root', snapshot);
    const bytes = fs.readFileSync(snapshot);
    const old = Buffer.from(bytes);
    old[5] = 2; // the version byte of "FMIDX\u0003": version 2 held mangled names
    fs.writeFileSync(snapshot, old);
    expect(loadSnapshot(snapshot, '/root', () => {})).toBeUndefined();
    fs.writeFileSync(snapshot, bytes.subarray(0, bytes.length - 3));
    expect(loadSnapshot(snapshot, '/root', () => {})).toBeUndefined();
    fs.writeFileSync(snapshot, Buffer.concat([bytes, Buffer.of(0)]));
    expect(loadSnapshot(snapshot, '/root', () => {})).toBeUndefined();
    fs.writeFileSync(snapshot, bytes);
    expect(loadSnapshot(snapshot, '/root', () => {})?.live).toBe(2);
  });
});

describe('Parents', () => {
  it('answers every id like a column would, for runs, interleaved folders and lookups in any order', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const p = new Parents();
    const column: number[] = [];
    let parent = -1;
    for (let id = 0; id < 20_000; id++) {
      // Mostly runs of one folder, sometimes another folder or a lone entry.
      if (random() < 0.05) parent = Math.floor(random() * 500);
      p.push(id, parent);
      column.push(parent);
    }
    expect(p.count).toBeLessThan(2000);
    for (let id = 0; id < column.length; id++) expect(p.get(id)).toBe(column[id]);
    for (let i = 0; i < 20_000; i++) {
      const id = Math.floor(random() * column.length);
      expect(p.get(id)).toBe(column[id]);
    }
  });

  it('keeps each entry under its folder when folders are filled in turns', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const b = s.add(ROOT_ID, dir('b'));
    for (let i = 0; i < 50; i++) s.add(i % 3 ? a : b, file(`f${i}`));
    expect(s.childIds(a).every((id) => s.parentOf(id) === a && s.pathOf(id).startsWith('/a/'))).toBe(true);
    expect(s.childIds(b).every((id) => s.parentOf(id) === b && s.pathOf(id).startsWith('/b/'))).toBe(true);
    expect(s.parentOf(a)).toBe(ROOT_ID);
    expect(s.parentOf(ROOT_ID)).toBe(-1);
  });
});
