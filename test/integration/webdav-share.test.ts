/**
 * SHARE over WebDAV: `/dav-share/<hash>/` shows exactly what the share page shows — a folder
 * share's folder (never its siblings, whatever the path spelling), a file share's one file — read
 * only, with the link's password asked by Basic, and nothing once the link or the owner's right
 * to share is gone. (copyparty's worst advisory was a share that exposed siblings over another
 * protocol.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { makeTree } from '../helpers/files.ts';
import { rawRequest } from '../helpers/http-raw.ts';
import { davClient, hrefs } from '../helpers/dav.ts';
import { PERMS, share, updateUser } from './share-helpers.ts';

let fm: FmServer;
let owner: Client;
let ownerId: number;
let ownerPassword: string;

const SIBLING = 'sibling-secret';

/** An anonymous WebDAV request, optionally with Basic credentials. */
function visit(method: string, rawPath: string, opts: { password?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { Depth: '1', ...opts.headers };
  if (opts.password !== undefined) headers.Authorization = `Basic ${Buffer.from(`anyone:${opts.password}`).toString('base64')}`;
  return rawRequest(fm.url, { method, path: rawPath, headers });
}

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  makeTree(fm.root, {
    owner: {
      pub: { 'a.txt': 'shared a', sub: { 'b.txt': 'shared b' }, '.dot': 'dotfile' },
      'sibling.txt': SIBLING,
      'one.txt': 'the one file',
      'locked.txt': 'pw',
    },
  });
  const admin = await adminClient(fm);
  const created = await createUser(admin, fm, 'owner', { scope: '/owner', perm: PERMS });
  owner = created.client;
  ownerId = created.id;
  ownerPassword = created.password;
});
afterAll(async () => {
  await fm.stop();
});

describe('SHARE: the WebDAV view of a public link', () => {
  it('a folder share lists and serves its folder, and nothing beside it', async () => {
    const { hash } = await share(owner, '/pub');
    // The owner's dead properties are the owner's: the share page does not show them.
    const patch = '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><note xmlns="urn:n">private note</note></D:prop></D:set></D:propertyupdate>';
    expect((await davClient(fm.url, 'owner', ownerPassword)('PROPPATCH', '/pub/a.txt', { body: patch })).status).toBe(207);
    const list = await visit('PROPFIND', `/dav-share/${hash}/`);
    expect(list.status).toBe(207);
    expect(list.text).not.toContain('private note');
    expect(hrefs(list.text).sort()).toEqual([`/dav-share/${hash}/`, `/dav-share/${hash}/.dot`, `/dav-share/${hash}/a.txt`, `/dav-share/${hash}/sub/`]);
    expect(list.text).not.toContain('supportedlock');
    expect((await visit('GET', `/dav-share/${hash}/sub/b.txt`)).text).toBe('shared b');
    for (const attempt of ['/../sibling.txt', '/%2e%2e/sibling.txt', '/sub/../../sibling.txt', '/..%5csibling.txt', '/%2e%2e%2fsibling.txt']) {
      for (const method of ['GET', 'PROPFIND']) {
        const res = await visit(method, `/dav-share/${hash}${attempt}`);
        expect.soft([400, 403, 404], `${method} ${attempt}: ${res.status}`).toContain(res.status);
        expect(res.text).not.toContain(SIBLING);
        expect(res.text).not.toContain('sibling.txt');
      }
    }
  });

  it('is read-only: every writing method is 405 and changes nothing', async () => {
    const { hash } = await share(owner, '/pub');
    for (const method of ['PUT', 'DELETE', 'MKCOL', 'COPY', 'MOVE', 'PROPPATCH', 'LOCK', 'UNLOCK']) {
      const res = await visit(method, `/dav-share/${hash}/a.txt`, { headers: { Destination: `/dav-share/${hash}/c.txt` } });
      expect(res.status, method).toBe(405);
      expect(res.headers.allow).toBe('OPTIONS, GET, HEAD, PROPFIND');
    }
    expect(fs.readdirSync(path.join(fm.root, 'owner', 'pub')).sort()).toEqual(['.dot', 'a.txt', 'sub']);
  });

  it('a file share is its one file, as the only entry of the share root', async () => {
    const { hash } = await share(owner, '/one.txt');
    const list = await visit('PROPFIND', `/dav-share/${hash}/`);
    expect(hrefs(list.text)).toEqual([`/dav-share/${hash}/`, `/dav-share/${hash}/one.txt`]);
    expect(list.text).not.toContain('sibling');
    expect((await visit('GET', `/dav-share/${hash}/one.txt`)).text).toBe('the one file');
    for (const other of ['/sibling.txt', '/one.txt/x', '/../sibling.txt']) {
      const res = await visit('GET', `/dav-share/${hash}${other}`);
      expect.soft([400, 403, 404], other).toContain(res.status);
      expect(res.text).not.toContain(SIBLING);
    }
  });

  it('a password share asks for the password with Basic; wrong ones are refused', async () => {
    const { hash } = await share(owner, '/locked.txt', { password: 'share-pass-1', expires: '', unit: 'hours' });
    const none = await visit('PROPFIND', `/dav-share/${hash}/`);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic realm="fm share"/);
    expect((await visit('PROPFIND', `/dav-share/${hash}/`, { password: 'wrong' })).status).toBe(401);
    const ok = await visit('GET', `/dav-share/${hash}/locked.txt`, { password: 'share-pass-1' });
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('pw');
  });

  it('answers nothing once the link is deleted or the owner may no longer share', async () => {
    const { hash } = await share(owner, '/pub');
    expect((await visit('PROPFIND', `/dav-share/${hash}/`)).status).toBe(207);
    const admin = await adminClient(fm);
    await updateUser(admin, fm, ownerId, { perm: { ...PERMS, share: false } });
    expect((await visit('PROPFIND', `/dav-share/${hash}/`)).status).toBe(403);
    await updateUser(admin, fm, ownerId, { perm: PERMS });
    expect((await owner.fetch(`/api/share/${hash}`, { method: 'DELETE' })).status).toBe(200);
    expect((await visit('PROPFIND', `/dav-share/${hash}/`)).status).toBe(404);
    expect((await visit('PROPFIND', '/dav-share/nonexistent/')).status).toBe(404);
  });
});
