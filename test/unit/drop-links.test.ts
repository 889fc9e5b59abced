/** Pure rules of drop links: the upload name (services/drops/names.ts), the request's limits (schemas/shares.ts), the dialog's fields (web/lib/dropLimits.ts). */
import { describe, expect, it } from 'vitest';
import { dropPath } from '../../src/services/drops/names.ts';
import { parseShareRequest } from '../../src/schemas/shares.ts';
import { draftLimits, EMPTY_DROP_DRAFT } from '../../web/lib/dropLimits.ts';

describe('dropPath', () => {
  it('decodes each segment once into a path under the shared folder', () => {
    expect(dropPath('a.txt')).toBe('/a.txt');
    expect(dropPath('photos/2024/a%20b.jpg')).toBe('/photos/2024/a b.jpg');
    // An encoded "%" stays a "%": decoded once only.
    expect(dropPath('100%2525.txt')).toBe('/100%25.txt');
    expect(dropPath('%E2%82%AC.txt')).toBe('/€.txt');
  });

  it('refuses empty, ".", ".." and absolute names, separators or NUL inside a name, and bad encoding', () => {
    for (const bad of ['', '..', '.', '%2e%2e', '%2E', 'a/../b', '/a', 'a//b', 'a/', '%2Fetc%2Fpasswd', 'a%5Cb', 'a%00', '%ZZ', '%C3%28']) {
      expect(() => dropPath(bad), bad).toThrow(/name|encoding|NUL|"\/"/);
    }
  });

  it('refuses names too long and drops nested too deep', () => {
    expect(() => dropPath('x'.repeat(256))).toThrow(/too long/);
    expect(() => dropPath(Array.from({ length: 40 }, () => 'd').join('/'))).toThrow(/nests/);
  });
});

describe('share request limits', () => {
  it('keeps the limits of an upload-only link and drops absent or null ones', () => {
    expect(parseShareRequest({ uploadOnly: true, maxFiles: 3, maxBytes: null })).toMatchObject({ uploadOnly: true, limits: { maxFiles: 3 } });
    expect(parseShareRequest({ uploadOnly: false }).uploadOnly).toBeUndefined();
  });

  it('refuses limits without uploadOnly and limits that are not positive whole numbers', () => {
    expect(() => parseShareRequest({ maxFiles: 1 })).toThrow(/upload-only/);
    for (const v of [0, -1, 2.5, '4', Number.MAX_SAFE_INTEGER + 2])
      expect(() => parseShareRequest({ uploadOnly: true, maxFileSize: v }), String(v)).toThrow(/maxFileSize/);
  });
});

describe('the share dialog limits', () => {
  it('reads counts and sizes as typed, empty meaning no limit', () => {
    expect(draftLimits({ ...EMPTY_DROP_DRAFT, uploadOnly: true })).toEqual({});
    expect(draftLimits({ uploadOnly: true, maxFiles: ' 12 ', maxFileSize: '1.5MB', maxBytes: '2g' })).toEqual({
      maxFiles: 12,
      maxFileSize: 1.5 * 1024 * 1024,
      maxBytes: 2 * 1024 ** 3,
    });
  });

  it('is undefined while a field is invalid', () => {
    for (const bad of [{ maxFiles: '0' }, { maxFiles: '1.5' }, { maxFileSize: 'big' }, { maxBytes: '0MB' }]) {
      expect(draftLimits({ ...EMPTY_DROP_DRAFT, uploadOnly: true, ...bad }), JSON.stringify(bad)).toBeUndefined();
    }
  });
});
