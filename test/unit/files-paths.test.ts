import { describe, expect, it } from 'vitest';
import { BadRequestError, ForbiddenError } from '../../src/errors.ts';
import { baseName, checkName, cleanPath, encodePath, isWithin, joinVirtual, parentOf, parseRequestPath } from '../../src/services/files/paths.ts';

describe('parseRequestPath decodes once and cleans', () => {
  it.each([
    ['/', '/'],
    ['', '/'],
    ['/a/b.txt', '/a/b.txt'],
    ['//a///b', '/a/b'],
    ['/a/./b/.', '/a/b'],
    ['/a/b/../c', '/a/c'],
    ['/a%2Fb', '/a/b'],
    ['/a%5Cb', '/a/b'],
    ['\\a\\b', '/a/b'],
    ['/%2e/a', '/a'],
    ['/a/%2e%2e/b', '/b'],
    ['/%252e%252e/x', '/%2e%2e/x'],
    ['/caf%C3%A9', '/café'],
    ['/a+b', '/a+b'],
  ])('%j -> %j', (raw, clean) => {
    expect(parseRequestPath(raw).path).toBe(clean);
  });

  it('remembers a trailing slash (POST/PUT create a folder)', () => {
    expect(parseRequestPath('/a/b/').trailingSlash).toBe(true);
    expect(parseRequestPath('/a/b').trailingSlash).toBe(false);
    expect(parseRequestPath('/').trailingSlash).toBe(false);
  });

  it.each(['/..', '/../etc/passwd', '/a/../../b', '/%2e%2e/x', '/%2E%2E%2Fetc', '/..%5c..%5cwindows', '\\..\\x', '/a/%2e%2e/%2e%2e'])(
    'refuses to climb above the root: %j',
    (raw) => {
      expect(() => parseRequestPath(raw)).toThrow(ForbiddenError);
    },
  );

  it.each(['/a%00b', '/a\0b', '/%ff', '/%C3', '/%E0%80%80', '/%', '/%zz', '/%ed%a0%80'])('answers 400 to NUL and invalid encodings: %j', (raw) => {
    expect(() => parseRequestPath(raw)).toThrow(BadRequestError);
  });

  it('limits names and whole paths', () => {
    expect(() => parseRequestPath(`/${'a'.repeat(256)}`)).toThrow(BadRequestError);
    expect(parseRequestPath(`/${'a'.repeat(255)}`).path).toHaveLength(256);
    expect(() => parseRequestPath(`/${'abc/'.repeat(1100)}`)).toThrow(BadRequestError);
    expect(() => cleanPath(`/${'é'.repeat(200)}`)).toThrow(BadRequestError); // 400 bytes in UTF-8
  });

  it('refuses lone surrogates', () => {
    expect(() => cleanPath('/a\ud800b')).toThrow(BadRequestError);
    expect(cleanPath('/\ud83d\ude00').path).toBe('/\ud83d\ude00');
  });
});

describe('path helpers', () => {
  it('isWithin respects segment boundaries', () => {
    expect(isWithin('/a', '/a')).toBe(true);
    expect(isWithin('/a', '/a/b')).toBe(true);
    expect(isWithin('/a', '/ab')).toBe(false);
    expect(isWithin('/a/b', '/a')).toBe(false);
    expect(isWithin('/', '/x')).toBe(true);
  });

  it('parentOf, baseName, joinVirtual, encodePath', () => {
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/')).toBe('/');
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect(baseName('/')).toBe('');
    expect(joinVirtual('/a', 'b/../c')).toBe('/a/c');
    expect(joinVirtual('/a', '/b')).toBe('/a/b');
    expect(() => joinVirtual('/a', '../../x')).toThrow(ForbiddenError);
    expect(encodePath('/a b/c#d?e')).toBe('/a%20b/c%23d%3Fe');
  });

  it('checkName refuses separators, dots and NUL', () => {
    for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'a\0b', 'x'.repeat(256)]) expect(() => checkName(bad)).toThrow(BadRequestError);
    expect(checkName('ok name.txt')).toBe('ok name.txt');
    expect(checkName('...')).toBe('...');
  });
});

describe('names that are bytes (disk/names.ts)', () => {
  it('every segment is folded to its one spelling, so rules see one name', () => {
    // "é" spelled as two escaped bytes (C3 A9) is the character itself.
    expect(cleanPath('/caf\uf7c3\uf7a9/x').path).toBe('/café/x');
    expect(parseRequestPath('/caf%EF%9F%83%EF%9E%A9').path).toBe('/café');
    // A byte that is not UTF-8 stays escaped.
    expect(cleanPath('/caf\uf7e9').path).toBe('/caf\uf7e9');
  });

  it('lengths count bytes on disk: an escape is one byte', () => {
    expect(cleanPath(`/${'\uf7e9'.repeat(255)}`).path).toHaveLength(256);
    expect(() => cleanPath(`/${'\uf7e9'.repeat(256)}`)).toThrow(BadRequestError);
    expect(checkName('\uf7ff'.repeat(255))).toHaveLength(255);
  });

  it('raw invalid UTF-8 in a request path is 400', () => {
    for (const bad of ['/caf%E9', '/%FF%FE', '/%C3']) expect(() => parseRequestPath(bad)).toThrow(BadRequestError);
  });
});
