/** Share links: duration validation (spec §5), link building, order (spec §4 "Create share"), QR constants (§9). */
import { describe, expect, it } from 'vitest';
import { parseSharePath, publicDownloadUrl, QR_LEVEL, QR_SIZE, shareUrl, sortShares } from '../../web/lib/shareLinks.ts';
// The share dialog uses the shared contract's rule and units directly.
import { DEFAULT_SHARE_UNIT, MAX_SHARE_DURATION, parseShareDuration as parseDuration, SHARE_UNIT_NAMES, SHARE_UNITS } from '../../src/api/shares.ts';

describe('share duration', () => {
  it('is empty or 0 for a permanent link, else a whole number from 1 to 2147483647', () => {
    expect(parseDuration('')).toBe(0);
    expect(parseDuration('  ')).toBe(0);
    expect(parseDuration('0')).toBe(0);
    expect(parseDuration('1')).toBe(1);
    expect(parseDuration(' 24 ')).toBe(24);
    expect(parseDuration('2147483647')).toBe(2147483647);
    for (const bad of ['2147483648', '-1', '1.5', '1e3', 'abc', '0x10']) expect([bad, parseDuration(bad)]).toEqual([bad, undefined]);
  });

  it('offers the server units, hours by default, and the server maximum', () => {
    expect(SHARE_UNIT_NAMES).toEqual(Object.keys(SHARE_UNITS));
    expect(SHARE_UNIT_NAMES).toEqual(['seconds', 'minutes', 'hours', 'days']);
    expect(DEFAULT_SHARE_UNIT).toBe('hours');
    expect(MAX_SHARE_DURATION).toBe(2147483647);
  });
});

describe('share links', () => {
  it('builds the public page link, encoding the hash and each path segment', () => {
    expect(shareUrl('https://h', '', 'AbC-12_x')).toBe('https://h/share/AbC-12_x');
    expect(shareUrl('https://h', '/fm', 'AbC', '/a b/c#d.txt')).toBe('https://h/fm/share/AbC/a%20b/c%23d.txt');
    expect(shareUrl('https://h', '', 'AbC', '/')).toBe('https://h/share/AbC');
  });

  it('builds public download links with inline, archive format, selection and token', () => {
    expect(publicDownloadUrl('', 'AbC')).toBe('/api/public/dl/AbC');
    expect(publicDownloadUrl('/fm', 'AbC', '/x y.txt', { inline: true, token: 't/k' })).toBe('/fm/api/public/dl/AbC/x%20y.txt?inline=true&token=t%2Fk');
    const url = new URL(publicDownloadUrl('', 'AbC', '/', { files: ['/a,b.txt', '/c%d'], algo: 'targz' }), 'http://h');
    expect(url.searchParams.get('algo')).toBe('targz');
    // Each entry is encoded on its own, so commas and percent signs in names survive the list split.
    expect(url.searchParams.get('files')!.split(',').map(decodeURIComponent)).toEqual(['/a,b.txt', '/c%d']);
  });

  it('reads the hash and the decoded sub-path from the page path', () => {
    expect(parseSharePath('/share/AbC')).toEqual({ hash: 'AbC', subpath: '/' });
    expect(parseSharePath('/share/AbC/')).toEqual({ hash: 'AbC', subpath: '/' });
    expect(parseSharePath('/share/AbC/a%20b/c.txt')).toEqual({ hash: 'AbC', subpath: '/a b/c.txt' });
    expect(parseSharePath('/files/x')).toBeUndefined();
  });

  it('sorts permanent links first, then by expiry', () => {
    const links = [
      { hash: 'c', expire: 300 },
      { hash: 'b', expire: 0 },
      { hash: 'a', expire: 100 },
      { hash: 'd', expire: 0 },
    ];
    expect(sortShares(links).map((l) => l.hash)).toEqual(['b', 'd', 'a', 'c']);
    expect(links[0].hash).toBe('c');
  });

  it('draws the QR code at 200 px with correction level M', () => {
    expect([QR_SIZE, QR_LEVEL]).toEqual([200, 'M']);
  });
});
