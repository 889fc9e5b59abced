import { describe, expect, it } from 'vitest';
import { hasFilters, matches, needsStat, parseQuery, type Candidate } from '../../src/services/search/query.ts';
import { FmError } from '../../src/errors.ts';

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0); // 2025-06-15T12:00Z
const DAY = 86_400_000;
const file = (name: string, extra: Partial<Candidate> = {}): Candidate => ({ name, isDir: false, ...extra });
const dir = (name: string, extra: Partial<Candidate> = {}): Candidate => ({ name, isDir: true, ...extra });
const match = (query: string, c: Candidate) => matches(parseQuery(query, NOW), c);

describe('search query: filebrowser syntax', () => {
  it('splits words into terms, lower-cased by default, and matches a name containing ANY term', () => {
    expect(parseQuery('Foo  bar').terms).toEqual(['foo', 'bar']);
    expect(match('foo bar', file('xBARx.txt'))).toBe(true);
    expect(match('foo bar', file('FOOD'))).toBe(true);
    expect(match('foo bar', file('baz'))).toBe(false);
  });

  it('keeps a quoted phrase as one term, spaces included', () => {
    expect(parseQuery('"My Photos"').terms).toEqual(['my photos']);
    expect(match('"my photos"', dir('All my photos 2024'))).toBe(true);
    expect(match('"my photos"', dir('photos of my cat'))).toBe(false);
  });

  it('accepts several quoted phrases mixed with words, and an unclosed quote runs to the end', () => {
    expect(parseQuery('"a b" c "d e').terms).toEqual(['a b', 'c', 'd e']);
    expect(parseQuery('""').terms).toEqual([]);
  });

  it('case:sensitive matches the exact case; case:insensitive is the default', () => {
    const q = parseQuery('case:sensitive Report');
    expect(q.caseSensitive).toBe(true);
    expect(q.terms).toEqual(['Report']);
    expect(match('case:sensitive Report', file('Report.pdf'))).toBe(true);
    expect(match('case:sensitive Report', file('report.pdf'))).toBe(false);
    expect(match('case:insensitive Report', file('report.pdf'))).toBe(true);
  });

  it('type:image|audio|music|video|pdf match by file type, OR-ed', () => {
    expect(match('type:image', file('a.JPG'))).toBe(true);
    expect(match('type:image', file('a.heic'))).toBe(true);
    expect(match('type:image', file('a.mp3'))).toBe(false);
    expect(match('type:music', file('a.flac'))).toBe(true);
    expect(match('type:audio type:video', file('a.mkv'))).toBe(true);
    expect(match('type:audio type:video', file('a.txt'))).toBe(false);
    expect(match('type:pdf', file('paper.PDF'))).toBe(true);
  });

  it('type:<other> and ext: match the extension, case-insensitively, and ext: takes a list', () => {
    expect(parseQuery('type:md').extensions).toEqual(['.md']);
    expect(match('type:md', file('README.MD'))).toBe(true);
    expect(match('ext:pdf', file('a.pdf'))).toBe(true);
    expect(match('ext:.pdf', file('a.pdf'))).toBe(true);
    expect(match('ext:jpg,png', file('a.png'))).toBe(true);
    expect(match('ext:jpg,png', file('a.gif'))).toBe(false);
    expect(match('type:image ext:txt', file('notes.txt'))).toBe(true);
  });

  it('never matches folders with type or ext conditions', () => {
    expect(match('type:image', dir('holiday.jpg'))).toBe(false);
    expect(match('ext:d', dir('conf.d'))).toBe(false);
  });

  it('combines kinds with terms: the kind must match AND a term must match', () => {
    expect(match('type:image beach', file('beach.jpg'))).toBe(true);
    expect(match('type:image beach', file('beach.txt'))).toBe(false);
    expect(match('type:image beach', file('city.jpg'))).toBe(false);
  });

  it('an empty query matches everything', () => {
    expect(match('', file('x'))).toBe(true);
    expect(match('   ', dir('y'))).toBe(true);
  });
});

describe('search query: filters (size, modified)', () => {
  it('parses sizes in binary units, case-insensitively', () => {
    expect(parseQuery('size>10MB').size).toEqual([{ op: '>', value: 10 * 1024 * 1024 }]);
    expect(parseQuery('size<1k').size).toEqual([{ op: '<', value: 1024 }]);
    expect(parseQuery('size>=1.5GiB').size).toEqual([{ op: '>=', value: 1.5 * 1024 ** 3 }]);
    expect(parseQuery('size<=100').size).toEqual([{ op: '<=', value: 100 }]);
    expect(parseQuery('SIZE=2b').size).toEqual([{ op: '=', value: 2 }]);
  });

  it('applies size filters to files only, AND-ed', () => {
    expect(match('size>1k', file('a', { size: 2048 }))).toBe(true);
    expect(match('size>1k', file('a', { size: 1024 }))).toBe(false);
    expect(match('size>1k size<1m', file('a', { size: 4096 }))).toBe(true);
    expect(match('size>1k size<1m', file('a', { size: 2 * 1024 * 1024 }))).toBe(false);
    expect(match('size>1k', dir('d', { size: 4096 }))).toBe(false);
  });

  it('modified<7d means changed in the last 7 days; modified>7d longer ago', () => {
    expect(match('modified<7d', file('a', { mtimeMs: NOW - 2 * DAY }))).toBe(true);
    expect(match('modified<7d', file('a', { mtimeMs: NOW - 8 * DAY }))).toBe(false);
    expect(match('modified>7d', file('a', { mtimeMs: NOW - 8 * DAY }))).toBe(true);
    expect(match('modified<2h', dir('d', { mtimeMs: NOW - 60_000 }))).toBe(true);
    expect(match('modified<30min', file('a', { mtimeMs: NOW - 31 * 60_000 }))).toBe(false);
    expect(match('modified<1mo', file('a', { mtimeMs: NOW - 29 * DAY }))).toBe(true);
    expect(match('modified<1y', file('a', { mtimeMs: NOW - 400 * DAY }))).toBe(false);
  });

  it('modified against a date: a bare date is a whole UTC day', () => {
    const jan1 = Date.UTC(2024, 0, 1);
    expect(match('modified>2024-01-01', file('a', { mtimeMs: jan1 + DAY + 1 }))).toBe(true);
    expect(match('modified>2024-01-01', file('a', { mtimeMs: jan1 + 3_600_000 }))).toBe(false);
    expect(match('modified<2024-01-01', file('a', { mtimeMs: jan1 - 1 }))).toBe(true);
    expect(match('modified<2024-01-01', file('a', { mtimeMs: jan1 }))).toBe(false);
    expect(match('modified=2024-01-01', file('a', { mtimeMs: jan1 + 5 }))).toBe(true);
    expect(match('modified=2024-01-01', file('a', { mtimeMs: jan1 + DAY }))).toBe(false);
    expect(match('modified>=2024-01-01T12:00Z', file('a', { mtimeMs: jan1 + 12 * 3_600_000 }))).toBe(true);
  });

  it('combines filters, kinds and terms', () => {
    const q = 'type:pdf size>1m modified<7d report';
    expect(match(q, file('Report-2025.pdf', { size: 2 * 1024 ** 2, mtimeMs: NOW - DAY }))).toBe(true);
    expect(match(q, file('Report-2025.pdf', { size: 2 * 1024 ** 2, mtimeMs: NOW - 9 * DAY }))).toBe(false);
    expect(match(q, file('Report-2025.pdf', { size: 100, mtimeMs: NOW - DAY }))).toBe(false);
    expect(match(q, file('Other.pdf', { size: 2 * 1024 ** 2, mtimeMs: NOW - DAY }))).toBe(false);
  });

  it('reports whether entries must be stat-ed', () => {
    expect(needsStat(parseQuery('type:image foo'))).toBe(false);
    expect(needsStat(parseQuery('size>1k'))).toBe(true);
    expect(needsStat(parseQuery('modified<1d'))).toBe(true);
  });

  it.each(['size>abc', 'size>10XB', 'modified<7q', 'modified>2024-13-45', 'modified>yesterday'])('refuses a malformed filter %s with 400', (q) => {
    let err: unknown;
    try {
      parseQuery(q, NOW);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FmError);
    expect((err as FmError).status).toBe(400);
  });

  it('treats unknown prefixes and lookalikes as plain terms', () => {
    expect(parseQuery('foo:bar sizeable').terms).toEqual(['foo:bar', 'sizeable']);
    expect(parseQuery('"size>10MB"').size).toEqual([]);
    expect(parseQuery('"size>10MB"').terms).toEqual(['size>10mb']);
  });

  it('tells a query with filters beyond names (the index then checks each hit) from one with terms alone', () => {
    for (const q of ['report', '"a b" c', 'case:sensitive X', '']) expect(hasFilters(parseQuery(q, NOW))).toBe(false);
    for (const q of ['type:image', 'ext:md x', 'size>1M', 'modified<1d report']) expect(hasFilters(parseQuery(q, NOW))).toBe(true);
  });

  it('refuses absurdly long queries', () => {
    expect(() => parseQuery('x'.repeat(5000))).toThrow(/too long/);
  });
});
