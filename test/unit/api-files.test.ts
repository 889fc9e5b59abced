/** The pure rules of the files contract (src/api/files.ts): free names, the name order, archive formats. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ARCHIVE_ALGOS,
  ARCHIVE_FORMATS,
  compareNames,
  freeName,
  freeNameCandidates,
  nameSortKey,
  parseArchiveAlgo,
  PROMPT_ARCHIVE_FORMATS,
} from '../../src/api/files.ts';

const first = (name: string, isDir = false) => freeNameCandidates(name, isDir).next().value;

describe('free names', () => {
  it('numbers the stem and keeps the last extension; folders keep their whole name', () => {
    const taken = new Set(['a.txt', 'a (1).txt', 'a.tar.gz', 'd', 'new.txt (1)']);
    const isTaken = (n: string) => taken.has(n);
    expect(freeName('a.txt', isTaken, false)).toBe('a (2).txt');
    expect(freeName('a.tar.gz', isTaken, false)).toBe('a.tar (1).gz');
    expect(freeName('d', isTaken, true)).toBe('d (1)');
    expect(freeName('d.x', () => true, true)).toBeUndefined();
    expect(freeName('new.txt', isTaken, false)).toBe('new.txt');
    expect(freeName('.env', (n) => n === '.env', false)).toBe('.env (1)');
  });

  it('splits the extension as the server always did (node path.extname)', () => {
    for (const name of ['a.txt', 'a.tar.gz', '.env', '.a.b', '..a', '...a', 'a.', 'a..', 'noext', '. a', 'x.y z']) {
      const ext = path.extname(name);
      expect([name, first(name)]).toEqual([name, `${ext ? name.slice(0, -ext.length) : name} (1)${ext}`]);
    }
    expect(first('a.b', true)).toBe('a.b (1)');
  });

  it('stops at the limit', () => {
    expect([...freeNameCandidates('a', false, 4)]).toEqual(['a (1)', 'a (2)', 'a (3)']);
  });
});

describe('name order', () => {
  it('orders _x, .hidden, a_b and a-b one way for the server and the UI', () => {
    expect(['_x', '.hidden', 'a_b', 'a-b'].sort(compareNames)).toEqual(['.hidden', '_x', 'a-b', 'a_b']);
  });

  it('keeps code order for other characters (- . digits _ letters), and is case-insensitive and natural', () => {
    const names = ['a_b', 'B', '_x', 'a-b', '.hidden', 'a10', 'a9', 'A2'];
    expect([...names].sort(compareNames)).toEqual(['.hidden', '_x', 'a-b', 'A2', 'a9', 'a10', 'a_b', 'B']);
  });

  it('orders numbers by value and ignores case and accents in the key', () => {
    expect(nameSortKey('É10')).toBe(nameSortKey('e10'));
    expect(nameSortKey('b9') < nameSortKey('b10')).toBe(true);
    expect(nameSortKey('b009') < nameSortKey('b10')).toBe(true);
  });

  it('breaks key ties by the raw name, so the order is total', () => {
    expect(['b', 'B'].sort(compareNames)).toEqual(['B', 'b']);
    expect(compareNames('x', 'x')).toBe(0);
  });
});

describe('archive formats', () => {
  it('describes every algo, and the prompt offers the seven of spec §9', () => {
    expect(Object.keys(ARCHIVE_FORMATS)).toEqual([...ARCHIVE_ALGOS]);
    for (const algo of ARCHIVE_ALGOS) expect(ARCHIVE_FORMATS[algo].extension).toBe(`.${ARCHIVE_FORMATS[algo].label}`);
    expect(PROMPT_ARCHIVE_FORMATS.map((f) => f.label)).toEqual(['zip', 'tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'tar.lz4', 'tar.sz']);
  });

  it('reads algo as clients send it', () => {
    expect(['', 'true', undefined, 'zip', 'tarzst', 'rar'].map(parseArchiveAlgo)).toEqual(['zip', 'zip', 'zip', 'zip', 'tarzst', undefined]);
  });
});
