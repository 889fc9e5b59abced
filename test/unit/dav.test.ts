/**
 * The pure parts of WebDAV: the If header, hrefs and Destination, XML bodies (namespaces,
 * entities, refusals) and the lock table (conflicts, depth, expiry).
 */
import { describe, expect, it } from 'vitest';
import { ifHolds, parseIfHeader, submittedTokens } from '../../src/services/dav/if-header.ts';
import { DavLocks, parseTimeout, MAX_LOCK_SECONDS } from '../../src/services/dav/locks.ts';
import { davPath, destinationPath, encodeName, hrefOf } from '../../src/server/dav/hrefs.ts';
import { parseXml, serializeNodes } from '../../src/server/dav/xml.ts';
import { decodeName } from '../../src/services/files/disk/names.ts';
import type { FmError } from '../../src/errors.ts';

const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as FmError).status;
  }
  return 0;
};

describe('If header', () => {
  const T = 'opaquelocktoken:aaaa';
  it('parses untagged and tagged lists, Not, tokens and entity tags', () => {
    expect(parseIfHeader(`(<${T}> ["e1"]) (Not <DAV:no-lock>)`)).toEqual([
      {
        resource: undefined,
        conditions: [
          { not: false, token: T },
          { not: false, etag: '"e1"' },
        ],
      },
      { resource: undefined, conditions: [{ not: true, token: 'DAV:no-lock' }] },
    ]);
    expect(parseIfHeader(`<http://h/dav/a> (<${T}>) <http://h/dav/b> (["x"])`).map((l) => l.resource)).toEqual(['http://h/dav/a', 'http://h/dav/b']);
    for (const bad of ['', '(', '()', '(<x>', 'nonsense', '(["x")'])
      expect(
        status(() => parseIfHeader(bad)),
        bad,
      ).toBe(400);
  });

  it('holds when one list holds entirely; a token is submitted only outside Not', () => {
    const state = { etag: '"e1"', tokens: [T] };
    expect(ifHolds(parseIfHeader(`(<${T}> ["e1"])`), () => state)).toBe(true);
    expect(ifHolds(parseIfHeader(`(<${T}> ["e2"])`), () => state)).toBe(false);
    expect(ifHolds(parseIfHeader('(<opaquelocktoken:bad>) (Not <DAV:no-lock>)'), () => state)).toBe(true);
    expect(ifHolds(parseIfHeader('(<DAV:no-lock>)'), () => state)).toBe(false);
    expect(ifHolds(parseIfHeader('(Not ["e1"])'), () => state)).toBe(false);
    expect([...submittedTokens(parseIfHeader(`(Not <${T}>) (<opaquelocktoken:b>)`))]).toEqual(['opaquelocktoken:b']);
  });
});

describe('hrefs and paths', () => {
  it('decode percent-escapes to bytes: a byte that is not UTF-8 names that byte', () => {
    expect(davPath('/a%20b/%C3%BC').path).toBe('/a b/ü');
    expect(davPath('/%FF').path).toBe(decodeName(Buffer.from([0x2f, 0xff])));
    expect(davPath('').path).toBe('/');
    expect(status(() => davPath('/%zz'))).toBe(400);
    expect(status(() => davPath('/../x'))).toBe(403);
    expect(status(() => davPath('/a%00'))).toBe(400);
  });

  it('encode the exact bytes of each name, folders with a trailing slash', () => {
    expect(encodeName('plain-name_1.txt~')).toBe('plain-name_1.txt~');
    expect(encodeName(decodeName(Buffer.from([0xff, 0x20, 0x23])))).toBe('%FF%20%23');
    expect(hrefOf('/fm/dav', '/', true)).toBe('/fm/dav/');
    expect(hrefOf('/dav', '/a b/c?', true)).toBe('/dav/a%20b/c%3F/');
    expect(davPath(hrefOf('/dav', '/ü x/%', false).slice(4)).path).toBe('/ü x/%');
  });

  it('Destination: this host and WebDAV only', () => {
    expect(destinationPath('http://h:1/dav/a%20b', 'h:1', '/dav')).toBe('/a b');
    expect(destinationPath('/dav/x/', 'h:1', '/dav')).toBe('/x');
    expect(status(() => destinationPath('http://other/dav/a', 'h:1', '/dav'))).toBe(502);
    expect(status(() => destinationPath('/api/resources/a', 'h:1', '/dav'))).toBe(403);
    expect(status(() => destinationPath('/davx/a', 'h:1', '/dav'))).toBe(403);
    expect(status(() => destinationPath('/dav/../a', 'h:1', '/dav'))).toBe(403);
    expect(status(() => destinationPath('a', 'h:1', '/dav'))).toBe(400);
    expect(status(() => destinationPath('', 'h:1', '/dav'))).toBe(400);
  });
});

describe('XML bodies', () => {
  it('resolve namespaces (default, prefixed, undeclared default) and decode the five entities and character references', () => {
    const el = parseXml('<?xml version="1.0"?><propfind xmlns="DAV:"><prop xmlns:z="urn:z"><z:a>x &amp; &#x10000; &lt;</z:a><b xmlns=""/></prop></propfind>');
    expect([el.ns, el.name]).toEqual(['DAV:', 'propfind']);
    const prop = el.children.find((c) => typeof c !== 'string')!;
    const [a, b] = typeof prop === 'string' ? [] : prop.children.filter((c) => typeof c !== 'string');
    expect(a).toMatchObject({ ns: 'urn:z', name: 'a', children: ['x & \u{10000} <'] });
    expect(b).toMatchObject({ ns: '', name: 'b' });
    expect(serializeNodes(typeof prop === 'string' ? [] : prop.children)).toBe('<a xmlns="urn:z">x &amp; \u{10000} &lt;</a><b xmlns=""></b>');
  });

  it('refuse DTDs, malformed XML, undeclared or empty prefixes and unknown entities (400)', () => {
    for (const bad of [
      '<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>',
      '<a><!ENTITY x "y"></a>',
      '<a><b></a>',
      '<x:a/>',
      '<a xmlns:x=""><x:b/></a>',
      '<a>&nbsp;</a>',
      '<a>&#0;</a>',
      '<a/><b/>',
    ]) {
      expect(
        status(() => parseXml(bad)),
        bad,
      ).toBe(400);
    }
  });
});

describe('lock table', () => {
  const base = { virtual: '/v', userId: 1, ownerXml: '', timeoutSeconds: 60 };
  it('exclusive conflicts with any lock, shared with exclusive; depth infinity covers descendants', () => {
    const locks = new DavLocks();
    const a = locks.create({ ...base, abs: '/r/a', scope: 'shared', depth: 'infinity' });
    locks.create({ ...base, abs: '/r/a', scope: 'shared', depth: '0' });
    expect(status(() => locks.create({ ...base, abs: '/r/a/b', scope: 'exclusive', depth: '0' }))).toBe(423);
    expect(status(() => locks.create({ ...base, abs: '/r', scope: 'exclusive', depth: 'infinity' }))).toBe(423);
    expect(locks.create({ ...base, abs: '/r/ab', scope: 'exclusive', depth: '0' }).token).toMatch(/^opaquelocktoken:/);
    expect(locks.covering('/r/a/b/c').map((l) => l.token)).toEqual([a.token]);
    expect(locks.within('/r').length).toBe(3);
    locks.removeWithin('/r/a');
    expect(locks.within('/r').length).toBe(1);
  });

  it('locks expire with their timeout; Timeout headers are capped', () => {
    let now = 0;
    const locks = new DavLocks(() => now);
    const l = locks.create({ ...base, abs: '/f', scope: 'exclusive', depth: '0' });
    now = 59_999;
    expect(locks.get(l.token)).toBeDefined();
    now = 60_000;
    expect(locks.get(l.token)).toBeUndefined();
    expect(parseTimeout('Second-600')).toBe(600);
    expect(parseTimeout('Infinite, Second-5')).toBe(MAX_LOCK_SECONDS);
    expect(parseTimeout('Second-99999999')).toBe(MAX_LOCK_SECONDS);
    expect(parseTimeout('nonsense')).toBe(3600);
  });
});
