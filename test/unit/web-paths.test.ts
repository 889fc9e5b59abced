import { describe, expect, it } from 'vitest';
import {
  baseName,
  breadcrumbs,
  decodePathname,
  encodePath,
  filesUrl,
  isWithin,
  joinPath,
  parentPath,
  pathFromFilesUrl,
  samePath,
  validName,
  visibleCrumbs,
} from '../../web/lib/paths.ts';
import { archiveUrl, previewUrl, rawUrl } from '../../web/api/resources.ts';
import { safeRedirect } from '../../web/lib/navigate.ts';

describe('path encoding', () => {
  it('encodes every segment and keeps the slashes', () => {
    expect(encodePath('/a b/c#d/e?f/100%/ü')).toBe('/a%20b/c%23d/e%3Ff/100%25/%C3%BC');
  });

  it('round-trips names with percent signs, slashes encoded inside a name, and unicode', () => {
    for (const p of ['/a%2Fb', '/100% done/x', '/日本/ファイル.txt', '/a+b/c&d=e']) {
      expect(decodePathname(encodePath(p))).toBe(p);
    }
  });

  it('leaves a malformed escape as it is instead of throwing', () => {
    expect(decodePathname('/a%E0%A4%A/b')).toBe('/a%E0%A4%A/b');
  });

  it('builds /files URLs with a trailing slash for folders only', () => {
    expect(filesUrl('/', true)).toBe('/files/');
    expect(filesUrl('/a b', true)).toBe('/files/a%20b/');
    expect(filesUrl('/a b/c.txt', false)).toBe('/files/a%20b/c.txt');
  });

  it('reads the virtual path back from a raw /files pathname', () => {
    expect(pathFromFilesUrl('/files/')).toBe('/');
    expect(pathFromFilesUrl('/files')).toBe('/');
    expect(pathFromFilesUrl('/files/a%20b/c%2Fd/')).toBe('/a b/c/d');
    expect(pathFromFilesUrl('/files/100%25')).toBe('/100%');
    expect(pathFromFilesUrl('/settings')).toBeUndefined();
  });

  it('joins, splits and compares paths', () => {
    expect(joinPath('/', 'x')).toBe('/x');
    expect(joinPath('/a/', 'x')).toBe('/a/x');
    expect(parentPath('/a/b/')).toBe('/a');
    expect(parentPath('/a')).toBe('/');
    expect(parentPath('/')).toBe('/');
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect(baseName('/')).toBe('');
    expect(samePath('/a/', '/a')).toBe(true);
    expect(isWithin('/a/b', '/a')).toBe(true);
    expect(isWithin('/ab', '/a')).toBe(false);
  });

  it('encodes API URLs the same way', () => {
    expect(rawUrl('/a b/c#.txt')).toBe('/api/raw/a%20b/c%23.txt');
    expect(rawUrl('/x', true)).toBe('/api/raw/x?inline=true');
    expect(previewUrl('/p/i.jpg', 'thumb', '2024-01-02T03:04:05Z')).toBe('/api/preview/thumb/p/i.jpg?inline=true&key=1704164645000');
  });

  it('escapes each archive entry so commas in names survive the list split', () => {
    const url = archiveUrl(['/a,b.txt', '/c d'], 'targz');
    const files = new URL(url, 'http://x').searchParams.get('files')!;
    expect(files.split(',').map(decodeURIComponent)).toEqual(['/a,b.txt', '/c d']);
    expect(url).toContain('algo=targz');
    expect(archiveUrl(['/dir'], 'zip')).toBe('/api/raw/dir?algo=zip');
  });
});

describe('names typed in prompts', () => {
  it('are trimmed and must not be empty, a dot entry or contain a slash', () => {
    expect(validName('  report.txt  ')).toBe('report.txt');
    for (const bad of ['', '   ', '.', '..', 'a/b']) expect(validName(bad)).toBeUndefined();
  });
});

describe('breadcrumbs', () => {
  it('gives one decoded crumb per segment linking to its folder', () => {
    expect(breadcrumbs('/a b/c')).toEqual([
      { name: 'a b', url: '/files/a%20b/' },
      { name: 'c', url: '/files/a%20b/c/' },
    ]);
    expect(breadcrumbs('/')).toEqual([]);
  });

  it('shows at most three behind an ellipsis that links to the deepest hidden folder', () => {
    const crumbs = breadcrumbs('/1/2/3/4/5');
    const v = visibleCrumbs(crumbs);
    expect(v.shown.map((c) => c.name)).toEqual(['3', '4', '5']);
    expect(v.hidden?.url).toBe('/files/1/2/');
    expect(visibleCrumbs(breadcrumbs('/1/2/3')).hidden).toBeUndefined();
  });
});

describe('redirect query', () => {
  it('accepts only paths of this site', () => {
    expect(safeRedirect('/files/a%20b/')).toBe('/files/a%20b/');
    for (const bad of [null, '', 'https://evil.example/', '//evil.example/', '/\\evil.example', 'files/']) expect(safeRedirect(bad)).toBeUndefined();
  });
});
