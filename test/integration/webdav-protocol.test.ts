/**
 * WebDAV over raw HTTP: what each method answers (RFC 4918 statuses), byte-exact hrefs, the
 * same ETag and Range handling as /api/raw, PUT streamed in atomically (a dropped client leaves
 * nothing, free space is checked first), dead properties that follow their file whichever door
 * moves it, the mtime setters clients use, hooks and the search index seeing WebDAV changes,
 * and the prefix flags (`--webdav-prefix`, `--no-webdav`, under a base URL).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quote } from '../../src/services/exec/plan.ts';
import { PARTIAL_PREFIX } from '../../src/services/files/disk/partials.ts';
import { adminClient, PROJECT_ROOT, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { davClient, hrefs, propText, type Dav } from '../helpers/dav.ts';

let fm: FmServer;
let admin: Client;
let dav: Dav;

const FREE_BYTES = 100_000;

async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const file = (rel: string) => path.join(fm.root, rel);

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'], diskSpace: { freeBytes: async () => FREE_BYTES } });
  admin = await adminClient(fm);
  dav = davClient(fm.url, 'admin', fm.adminPassword);
  fs.writeFileSync(file('hello.txt'), 'hello world');
  fs.mkdirSync(file('dir'));
  fs.writeFileSync(Buffer.concat([Buffer.from(`${file('dir')}/`), Buffer.from([0xff, 0x20, 0x61])]), 'not utf-8 name');
  fs.writeFileSync(file('dir/ünï cödé #1.txt'), 'unicode name');
});
afterAll(async () => {
  await fm.stop();
});

describe('WebDAV: OPTIONS and PROPFIND', () => {
  it('OPTIONS announces classes 1 and 2, the methods and MS-Author-Via', async () => {
    const res = await dav('OPTIONS', '/');
    expect(res.status).toBe(200);
    expect(res.headers.dav).toBe('1, 2');
    expect(res.headers['ms-author-via']).toBe('DAV');
    for (const m of ['PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'PUT']) expect(res.headers.allow).toContain(m);
  });

  it('Depth infinity (or none) is refused with propfind-finite-depth; other depths are 400', async () => {
    for (const depth of ['infinity', undefined]) {
      const res = await dav('PROPFIND', '/', { headers: depth ? { Depth: depth } : {} });
      expect(res.status).toBe(403);
      expect(res.text).toContain('<D:propfind-finite-depth/>');
    }
    expect((await dav('PROPFIND', '/', { headers: { Depth: '2' } })).status).toBe(400);
  });

  it('hrefs percent-encode the exact bytes of a name; a non-UTF-8 name is listed and fetched back', async () => {
    const res = await dav('PROPFIND', '/dir/', { headers: { Depth: '1' } });
    expect(res.status).toBe(207);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(hrefs(res.text).sort()).toEqual(['/dav/dir/', '/dav/dir/%C3%BCn%C3%AF%20c%C3%B6d%C3%A9%20%231.txt', '/dav/dir/%FF%20a']);
    expect(res.text).toContain('<D:displayname>\\xFF a</D:displayname>');
    for (const href of hrefs(res.text).filter((h) => !h.endsWith('/'))) {
      const got = await dav('GET', href.slice('/dav'.length));
      expect(got.status).toBe(200);
      expect(['not utf-8 name', 'unicode name']).toContain(got.text);
    }
  });

  it("live properties: the ETag is /api/raw's, sizes, dates, types; propname and unknown properties", async () => {
    const raw = await admin.fetch('/api/raw/hello.txt');
    const res = await dav('PROPFIND', '/hello.txt', { headers: { Depth: '0' } });
    expect(propText(res.text, 'getetag')).toBe(raw.headers.get('etag')!.replace(/"/g, '&quot;'));
    expect(propText(res.text, 'getcontentlength')).toBe('11');
    expect(propText(res.text, 'getcontenttype')).toBe('text/plain');
    expect(propText(res.text, 'getlastmodified')).toBe(raw.headers.get('last-modified'));
    expect(res.text).toContain('<D:resourcetype/>');
    const dir = await dav('PROPFIND', '/dir/', { headers: { Depth: '0' } });
    expect(dir.text).toContain('<D:resourcetype><D:collection/></D:resourcetype>');
    expect(dir.text).not.toContain('getetag');

    const names = await dav('PROPFIND', '/hello.txt', { headers: { Depth: '0' }, body: '<propfind xmlns="DAV:"><propname/></propfind>' });
    expect(names.text).toContain('<D:getetag/>');
    expect(names.text).not.toContain('hello world');
    const some = await dav('PROPFIND', '/hello.txt', {
      headers: { Depth: '0' },
      body: '<D:propfind xmlns:D="DAV:"><D:prop><D:getcontentlength/><x:nope xmlns:x="urn:x"/></D:prop></D:propfind>',
    });
    expect(some.text).toMatch(/<D:getcontentlength>11<\/D:getcontentlength><\/D:prop><D:status>HTTP\/1.1 200 OK/);
    expect(some.text).toMatch(/<nope xmlns="urn:x"\/><\/D:prop><D:status>HTTP\/1.1 404 Not Found/);
  });
});

describe('WebDAV: GET, PUT, MKCOL, DELETE', () => {
  it('GET and HEAD are the /api/raw download: Range, conditional requests, the user-file headers', async () => {
    const range = await dav('GET', '/hello.txt', { headers: { Range: 'bytes=6-' } });
    expect(range.status).toBe(206);
    expect(range.text).toBe('world');
    expect(range.headers['content-range']).toBe('bytes 6-10/11');
    expect(range.headers['content-security-policy']).toMatch(/^sandbox/);
    const etag = String(range.headers.etag);
    expect((await dav('GET', '/hello.txt', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    const head = await dav('HEAD', '/hello.txt');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('11');
    expect(head.body.length).toBe(0);
  });

  it('PUT creates (201) and replaces (204) atomically; never creates parents (409) nor replaces a folder (405)', async () => {
    const created = await dav('PUT', '/new.txt', { body: 'one' });
    expect(created.status).toBe(201);
    expect(created.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect((await dav('PUT', '/new.txt', { body: 'two' })).status).toBe(204);
    expect(fs.readFileSync(file('new.txt'), 'utf8')).toBe('two');
    expect((await dav('PUT', '/missing/new.txt', { body: 'x' })).status).toBe(409);
    expect(fs.existsSync(file('missing'))).toBe(false);
    expect((await dav('PUT', '/dir', { body: 'x' })).status).toBe(405);
    expect((await dav('PUT', '/new.txt', { headers: { 'Content-Range': 'bytes 0-1/2' }, body: 'xy' })).status).toBe(400);
    expect(fs.readFileSync(file('new.txt'), 'utf8')).toBe('two');
  });

  it('PUT checks the declared length against free space before any byte (507)', async () => {
    const res = await dav('PUT', '/big.bin', { headers: { 'Content-Length': String(FREE_BYTES + 1) }, body: Buffer.alloc(FREE_BYTES + 1) });
    expect(res.status).toBe(507);
    expect(fs.existsSync(file('big.bin'))).toBe(false);
  });

  it('a client that drops mid-PUT leaves nothing: no file, no temporary file', async () => {
    fs.mkdirSync(file('drop'));
    const url = new URL(fm.url);
    const socket = net.connect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const auth = Buffer.from(`admin:${fm.adminPassword}`).toString('base64');
    socket.write(`PUT /dav/drop/cut.bin HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Basic ${auth}\r\nContent-Length: 50000\r\n\r\n`);
    socket.write(Buffer.alloc(20_000, 1));
    await waitFor(() => fs.readdirSync(file('drop')).some((n) => n.startsWith(PARTIAL_PREFIX)), 'the temporary file');
    socket.destroy();
    await waitFor(() => fs.readdirSync(file('drop')).length === 0, 'the temporary file to go');
    expect(fs.existsSync(file('drop/cut.bin'))).toBe(false);
  });

  it('MKCOL: 201, 405 when the name exists, 409 without a parent, 415 with a body', async () => {
    expect((await dav('MKCOL', '/made')).status).toBe(201);
    expect(fs.statSync(file('made')).isDirectory()).toBe(true);
    expect((await dav('MKCOL', '/made')).status).toBe(405);
    expect((await dav('MKCOL', '/hello.txt')).status).toBe(405);
    expect((await dav('MKCOL', '/none/made')).status).toBe(409);
    expect((await dav('MKCOL', '/withbody', { body: '<x/>' })).status).toBe(415);
    expect(fs.existsSync(file('withbody'))).toBe(false);
  });

  it('DELETE removes a file or a whole folder (204); a missing one is 404', async () => {
    fs.mkdirSync(file('gone/deep'), { recursive: true });
    fs.writeFileSync(file('gone/deep/f.txt'), 'f');
    expect((await dav('DELETE', '/gone/')).status).toBe(204);
    expect(fs.existsSync(file('gone'))).toBe(false);
    expect((await dav('DELETE', '/gone/')).status).toBe(404);
  });
});

describe('WebDAV: COPY and MOVE', () => {
  it('Overwrite F on an existing destination is 412; T replaces (204); a new one is 201', async () => {
    fs.writeFileSync(file('src.txt'), 'source');
    fs.writeFileSync(file('dst.txt'), 'destination');
    expect((await dav('COPY', '/src.txt', { headers: { Destination: '/dav/dst.txt', Overwrite: 'F' } })).status).toBe(412);
    expect(fs.readFileSync(file('dst.txt'), 'utf8')).toBe('destination');
    expect((await dav('COPY', '/src.txt', { headers: { Destination: `${fm.url}/dav/dst.txt` } })).status).toBe(204);
    expect(fs.readFileSync(file('dst.txt'), 'utf8')).toBe('source');
    expect((await dav('MOVE', '/src.txt', { headers: { Destination: '/dav/moved.txt' } })).status).toBe(201);
    expect(fs.existsSync(file('src.txt'))).toBe(false);
    expect((await dav('MOVE', '/moved.txt', { headers: { Destination: '/dav/moved.txt' } })).status).toBe(403);
    expect((await dav('MOVE', '/moved.txt', { headers: { Destination: '/dav/moved2.txt', Depth: '0' } })).status).toBe(400);
    expect((await dav('COPY', '/moved.txt', { headers: { Destination: '/dav/nowhere/x.txt' } })).status).toBe(409);
  });

  it('a folder copied with Depth 0 is an empty folder; onto an existing folder, the copy replaces it', async () => {
    fs.mkdirSync(file('tree/sub'), { recursive: true });
    fs.writeFileSync(file('tree/sub/a.txt'), 'a');
    expect((await dav('COPY', '/tree/', { headers: { Destination: '/dav/shallow/', Depth: '0' } })).status).toBe(201);
    expect(fs.readdirSync(file('shallow'))).toEqual([]);
    fs.mkdirSync(file('full'));
    fs.writeFileSync(file('full/old.txt'), 'old');
    expect((await dav('COPY', '/tree/', { headers: { Destination: '/dav/full/' } })).status).toBe(204);
    expect(fs.readdirSync(file('full'))).toEqual(['sub']);
    expect((await dav('COPY', '/tree/', { headers: { Destination: '/dav/tree/sub/in/' } })).status).toBe(403);
  });
});

describe('WebDAV: PROPPATCH', () => {
  const setProp = (value: string) =>
    `<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:colour>${value}</Z:colour></D:prop></D:set></D:propertyupdate>`;
  const colour = async (p: string) =>
    propText(
      (await dav('PROPFIND', p, { headers: { Depth: '0' }, body: '<D:propfind xmlns:D="DAV:"><D:prop><colour xmlns="urn:z"/></D:prop></D:propfind>' })).text,
      'colour',
    );

  it('dead properties are stored per file and follow it through a WebDAV copy, an API move and a delete', async () => {
    fs.writeFileSync(file('props.txt'), 'p');
    const res = await dav('PROPPATCH', '/props.txt', { body: setProp('red &amp; blue') });
    expect(res.status).toBe(207);
    expect(res.text).toContain('HTTP/1.1 200 OK');
    expect(await colour('/props.txt')).toBe('red &amp; blue');
    expect((await dav('COPY', '/props.txt', { headers: { Destination: '/dav/props-copy.txt' } })).status).toBe(201);
    expect(await colour('/props-copy.txt')).toBe('red &amp; blue');
    const moved = await admin.fetch(`/api/resources/props.txt?action=rename&destination=${encodeURIComponent('/props-moved.txt')}`, { method: 'PATCH' });
    expect(moved.status).toBe(200);
    expect(await colour('/props-moved.txt')).toBe('red &amp; blue');
    expect((await dav('DELETE', '/props-moved.txt')).status).toBe(204);
    fs.writeFileSync(file('props-moved.txt'), 'again');
    expect(await colour('/props-moved.txt')).toBeUndefined();
  });

  it('a file whose path is longer than a database index entry may be (over 3 KB) keeps its properties, and they follow a move', async () => {
    // Random names: a repetitive path would be compressed into a small index entry.
    const deep = Array.from({ length: 14 }, () => crypto.randomBytes(115).toString('hex')).join('/');
    fs.mkdirSync(file(deep), { recursive: true });
    fs.writeFileSync(file(`${deep}/long.txt`), 'l');
    expect(Buffer.byteLength(path.join(fm.root, deep))).toBeGreaterThan(3000);
    expect((await dav('PROPPATCH', `/${deep}/long.txt`, { body: setProp('deep green') })).status).toBe(207);
    expect(await colour(`/${deep}/long.txt`)).toBe('deep green');
    expect((await dav('MOVE', `/${deep}/long.txt`, { headers: { Destination: `/dav/${deep}/longer.txt` } })).status).toBe(201);
    expect(await colour(`/${deep}/longer.txt`)).toBe('deep green');
    expect((await dav('DELETE', `/${deep}/longer.txt`)).status).toBe(204);
    fs.writeFileSync(file(`${deep}/longer.txt`), 'again');
    expect(await colour(`/${deep}/longer.txt`)).toBeUndefined();
  });

  it('a protected live property fails (403) and nothing else is applied (424)', async () => {
    fs.writeFileSync(file('atomic.txt'), 'a');
    const body =
      '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getetag>"x"</D:getetag><colour xmlns="urn:z">green</colour></D:prop></D:set></D:propertyupdate>';
    const res = await dav('PROPPATCH', '/atomic.txt', { body });
    expect(res.text).toMatch(/<D:getetag\/><\/D:prop><D:status>HTTP\/1.1 403/);
    expect(res.text).toMatch(/<colour xmlns="urn:z"\/><\/D:prop><D:status>HTTP\/1.1 424/);
    expect(await colour('/atomic.txt')).toBeUndefined();
  });

  it('Win32LastModifiedTime, DAV:getlastmodified and X-OC-Mtime set the modification time', async () => {
    fs.writeFileSync(file('times.txt'), 't');
    const win =
      '<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop><Z:Win32LastModifiedTime>Wed, 01 Jan 2020 10:00:00 GMT</Z:Win32LastModifiedTime></D:prop></D:set></D:propertyupdate>';
    expect((await dav('PROPPATCH', '/times.txt', { body: win })).status).toBe(207);
    expect(fs.statSync(file('times.txt')).mtime.toISOString()).toBe('2020-01-01T10:00:00.000Z');
    const dav2 =
      '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getlastmodified>Sat, 02 Jan 2021 00:00:00 GMT</D:getlastmodified></D:prop></D:set></D:propertyupdate>';
    expect((await dav('PROPPATCH', '/times.txt', { body: dav2 })).status).toBe(207);
    expect(fs.statSync(file('times.txt')).mtime.toISOString()).toBe('2021-01-02T00:00:00.000Z');
    const put = await dav('PUT', '/oc.txt', { headers: { 'X-OC-Mtime': '1500000000' }, body: 'oc' });
    expect(put.status).toBe(201);
    expect(put.headers['x-oc-mtime']).toBe('accepted');
    expect(fs.statSync(file('oc.txt')).mtimeMs).toBe(1_500_000_000_000);
  });
});

describe('WebDAV changes reach hooks and the search index', () => {
  it('PUT runs the upload hooks, DELETE the delete hooks; the index finds a new file at once', async () => {
    const hook = quote(path.join(PROJECT_ROOT, 'test', 'fixtures', 'uploads', 'log-hook.sh'));
    const set = await admin.fetch('/api/settings', {
      method: 'PUT',
      json: { enableExec: true, commands: { before_upload: [hook], after_upload: [hook], after_save: [hook], after_delete: [hook] } },
    });
    expect(set.status, await set.text()).toBe(200);
    const log = file('.upload-hooks.log');
    const lines = () =>
      fs.existsSync(log)
        ? fs
            .readFileSync(log, 'utf8')
            .split('\n')
            .map((l) => l.trimEnd())
            .filter(Boolean)
        : [];
    expect((await dav('PUT', '/hooked.txt', { body: 'hooked content' })).status).toBe(201);
    expect(lines()).toEqual([`before_upload ${file('hooked.txt')} absent`, `after_upload ${file('hooked.txt')} present hooked content`]);
    expect((await dav('PUT', '/hooked.txt', { body: 'again' })).status).toBe(204);
    expect((await dav('DELETE', '/hooked.txt')).status).toBe(204);
    expect(lines().slice(2)).toEqual([`after_save ${file('hooked.txt')} present again`, `after_delete ${file('hooked.txt')} absent`]);

    await waitFor(async () => (await admin.json<{ ready: boolean }>('/api/search-status')).ready, 'the index');
    expect((await dav('PUT', '/findme-zq.txt', { body: 'x' })).status).toBe(201);
    const found = await admin.fetch(`/api/search/?query=${encodeURIComponent('findme-zq')}`);
    expect(await found.text()).toContain('findme-zq.txt');
  });
});

describe('WebDAV: prefix flags', () => {
  it('--webdav-prefix under --baseurl puts every href under both; --no-webdav turns it off', async () => {
    const other = await startFm({ args: ['--log', 'off', '--baseurl', '/fm', '--webdav-prefix', '/webdav/'] });
    try {
      fs.writeFileSync(path.join(other.root, 'a b.txt'), 'x');
      const res = await davClient(other.url, 'admin', other.adminPassword, '/webdav')('PROPFIND', '/', { headers: { Depth: '1' } });
      expect(res.status).toBe(207);
      expect(hrefs(res.text).sort()).toEqual(['/fm/webdav/', '/fm/webdav/a%20b.txt']);
      expect((await davClient(other.url, 'admin', other.adminPassword)('PROPFIND', '/', { headers: { Depth: '1' } })).status).toBe(404);
    } finally {
      await other.stop();
    }
    const off = await startFm({ args: ['--log', 'off', '--no-webdav'] });
    try {
      expect((await davClient(off.url, 'admin', off.adminPassword)('PROPFIND', '/', { headers: { Depth: '1' } })).status).toBe(404);
    } finally {
      await off.stop();
    }
  });
});
