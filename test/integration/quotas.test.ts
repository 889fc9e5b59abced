/**
 * Per-user quotas through real HTTP: every write path (resources PUT and POST, folders, copy,
 * tus creation, WebDAV PUT, MKCOL and COPY) answers 507 `quota` past the quota and accepts a write
 * that lands exactly on it; nothing is half-written (no file, no temporary file, the old content
 * intact); an overwrite counts only the difference; a move inside the scope adds nothing; parallel
 * uploads cannot both take the last room; GET /api/usage answers the quota.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { davClient, propText } from '../helpers/dav.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { Tus } from './tus-helpers.ts';
import { tusDrop } from './drop-helpers.ts';
import { share } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
const PASSWORD = 'a-long-test-password-1';

interface Quota {
  client: Client;
  id: number;
  name: string;
  dir: string;
}

let n = 0;
/** A user with scope `/<name>`, a byte and an entry quota, and `seed` bytes already in `seed.bin` (written by the admin). */
async function quotaUser(quota: number, quotaFiles = 0, seed = 600): Promise<Quota> {
  const name = `q${++n}`;
  expect((await admin.fetch(`/api/resources/${name}/`, { method: 'POST' })).status).toBe(200);
  if (seed) expect((await admin.fetch(`/api/resources/${name}/seed.bin`, { method: 'PUT', body: new Uint8Array(seed) })).status).toBe(200);
  const { client, id } = await createUser(admin, fm, name, {
    scope: `/${name}`,
    quota,
    quotaFiles,
    perm: { create: true, modify: true, rename: true, delete: true },
  });
  return { client, id, name, dir: path.join(fm.root, name) };
}

async function put(u: Quota, p: string, size: number, method = 'PUT') {
  const res = await u.client.fetch(`/api/resources${p}`, { method, body: new Uint8Array(size).fill(7) });
  return { status: res.status, code: res.headers.get('X-Fm-Error'), text: await res.text() };
}

/** Every name in the user's folder, temporary files included. */
const namesIn = (u: Quota, sub = '') => fs.readdirSync(path.join(u.dir, sub)).sort();

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  await indexReady();
});

/** Polls the index status until it is ready (usage comes from the index then). */
async function indexReady(): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await admin.json<{ ready: boolean }>('/api/search-status')).ready) {
    if (Date.now() > deadline) throw new Error('the search index never became ready');
    await new Promise((r) => setTimeout(r, 50));
  }
}

afterAll(async () => {
  await fm?.stop();
});

describe('resources PUT and POST', () => {
  it('accepts a file that lands exactly on the quota, then refuses one byte more with 507 naming the quota', async () => {
    const u = await quotaUser(1000);
    expect((await put(u, '/fits.bin', 400)).status).toBe(200);
    const over = await put(u, '/over.bin', 1);
    expect(over).toMatchObject({ status: 507, code: 'quota' });
    expect(over.text).toContain(`over quota: 1000B for ${u.name}, 1000B used`);
    expect((await put(u, '/over.bin', 1, 'POST')).status).toBe(507);
    expect(namesIn(u)).toEqual(['fits.bin', 'seed.bin']);
  });

  it('an overwrite counts only the difference; a refused one leaves the old content intact', async () => {
    const u = await quotaUser(1000, 0, 900);
    expect((await put(u, '/seed.bin', 1000)).status).toBe(200);
    const refused = await put(u, '/seed.bin', 1001);
    expect(refused.status).toBe(507);
    expect(fs.readFileSync(path.join(u.dir, 'seed.bin'))).toEqual(Buffer.alloc(1000, 7));
    // Shrinking is always allowed, even at the limit.
    expect((await put(u, '/seed.bin', 10)).status).toBe(200);
    expect((await put(u, '/new.bin', 990, 'POST')).status).toBe(200);
    expect(namesIn(u)).toEqual(['new.bin', 'seed.bin']);
  });

  it('a body of unknown length is stopped at the quota and leaves no temporary file', async () => {
    const u = await quotaUser(1000, 0, 990);
    const res = await u.client.fetch('/api/resources/chunked.bin', {
      method: 'PUT',
      body: new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(8));
          c.enqueue(new Uint8Array(8));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect([res.status, res.headers.get('X-Fm-Error')]).toEqual([507, 'quota']);
    await res.text();
    expect(namesIn(u)).toEqual(['seed.bin']);
  });

  it('the entry quota counts files and folders: a new folder or file past it is 507, an overwrite is not', async () => {
    const u = await quotaUser(0, 2);
    expect((await u.client.fetch('/api/resources/sub/', { method: 'POST' })).status).toBe(200);
    const folder = await u.client.fetch('/api/resources/sub2/', { method: 'POST' });
    expect([folder.status, await folder.text()]).toEqual([507, expect.stringContaining(`over quota: 2 files for ${u.name}, 2 used; this needs 1 more`)]);
    expect((await put(u, '/sub/x.bin', 1)).status).toBe(507);
    expect((await put(u, '/seed.bin', 5000)).status).toBe(200);
    expect(namesIn(u)).toEqual(['seed.bin', 'sub']);
  });

  it('an admin without a quota writes into a quota user’s folder freely; the user then cannot add', async () => {
    const u = await quotaUser(1000);
    expect((await admin.fetch(`/api/resources/${u.name}/big.bin`, { method: 'PUT', body: new Uint8Array(2000) })).status).toBe(200);
    expect((await put(u, '/one.bin', 1)).status).toBe(507);
  });
});

describe('copy and move', () => {
  it('a copy past the quota is 507 and copies nothing; at exactly the quota it is done', async () => {
    const u = await quotaUser(1100, 0, 600);
    const copy = (to: string) => u.client.fetch(`/api/resources/seed.bin?action=copy&destination=${encodeURIComponent(to)}`, { method: 'PATCH' });
    const refused = await copy('/copy.bin');
    expect([refused.status, refused.headers.get('X-Fm-Error')]).toEqual([507, 'quota']);
    expect(namesIn(u)).toEqual(['seed.bin']);
    expect((await put(u, '/seed.bin', 500)).status).toBe(200);
    // 500 + 100 = 600, a copy of 500 brings it to 1100 exactly.
    expect((await put(u, '/small.bin', 100)).status).toBe(200);
    expect((await copy('/copy.bin')).status).toBe(200);
    expect(namesIn(u)).toEqual(['copy.bin', 'seed.bin', 'small.bin']);
  });

  it('a folder copy counts every entry and byte under it; a move inside the scope adds nothing', async () => {
    const u = await quotaUser(10_000, 4, 0);
    expect((await put(u, '/dir/a.bin', 100)).status).toBe(200);
    expect((await put(u, '/dir/b.bin', 100)).status).toBe(200);
    // dir, a.bin, b.bin = 3 entries; a copy would add 3 more.
    const copy = await u.client.fetch(`/api/resources/dir?action=copy&destination=${encodeURIComponent('/dir2')}`, { method: 'PATCH' });
    expect(copy.status).toBe(507);
    expect(await copy.text()).toContain('this needs 3 more');
    expect(namesIn(u)).toEqual(['dir']);
    const move = await u.client.fetch(`/api/resources/dir?action=rename&destination=${encodeURIComponent('/moved')}`, { method: 'PATCH' });
    expect(move.status).toBe(200);
    expect(namesIn(u)).toEqual(['moved']);
  });
});

describe('tus', () => {
  it('a creation whose declared length goes past the quota is 507; exactly the quota is accepted and finishes', async () => {
    const u = await quotaUser(1000);
    const tus = new Tus(u.client, fm.url);
    const over = await tus.create('/up.bin', 401);
    expect([over.status, over.headers['x-fm-error']]).toEqual([507, 'quota']);
    expect((await tus.upload('/up.bin', Buffer.alloc(400, 1), 100)).status).toBe(204);
    expect(fs.statSync(path.join(u.dir, 'up.bin')).size).toBe(400);
  });

  it('an unfinished upload holds its room: a parallel one cannot take it until the first is terminated', async () => {
    const u = await quotaUser(1000);
    const tus = new Tus(u.client, fm.url);
    expect((await tus.create('/first.bin', 300)).status).toBe(201);
    expect((await tus.create('/second.bin', 300)).status).toBe(507);
    expect((await put(u, '/plain.bin', 101)).status).toBe(507);
    expect((await tus.remove('/first.bin')).status).toBe(204);
    expect((await tus.create('/second.bin', 300)).status).toBe(201);
  });

  it('an upload replacing a file reserves only the difference', async () => {
    const u = await quotaUser(1000);
    const tus = new Tus(u.client, fm.url);
    expect((await tus.create('/seed.bin', 1000, { override: true })).status).toBe(201);
    expect((await tus.create('/seed.bin', 1001, { override: true })).status).toBe(507);
  });
});

describe('WebDAV', () => {
  it('PUT, MKCOL and COPY past the quota are 507 and leave nothing; PUT at exactly the quota is done', async () => {
    const u = await quotaUser(1000, 3);
    const dav = davClient(fm.url, u.name, PASSWORD);
    expect((await dav('PUT', '/over.bin', { body: Buffer.alloc(401) })).status).toBe(507);
    expect((await dav('PUT', '/fits.bin', { body: Buffer.alloc(400) })).status).toBe(201);
    expect((await dav('COPY', '/fits.bin', { headers: { Destination: `${fm.url}/dav/copy.bin` } })).status).toBe(507);
    expect((await dav('MKCOL', '/folder')).status).toBe(201);
    expect((await dav('MKCOL', '/folder2')).status).toBe(507);
    expect(namesIn(u)).toEqual(['fits.bin', 'folder', 'seed.bin']);
  });
  it('PROPFIND answers RFC 4331 quota properties for a folder; they cannot be set', async () => {
    const u = await quotaUser(1000);
    const dav = davClient(fm.url, u.name, PASSWORD);
    const body = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-available-bytes/><D:quota-used-bytes/></D:prop></D:propfind>';
    const res = await dav('PROPFIND', '/', { headers: { Depth: '0', 'Content-Type': 'application/xml' }, body });
    expect(res.status).toBe(207);
    expect([propText(res.text, 'quota-available-bytes'), propText(res.text, 'quota-used-bytes')]).toEqual(['400', '600']);
    const set =
      '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:quota-used-bytes>1</D:quota-used-bytes></D:prop></D:set></D:propertyupdate>';
    expect((await dav('PROPPATCH', '/seed.bin', { headers: { 'Content-Type': 'application/xml' }, body: set })).text).toContain('403 Forbidden');
    // Without a quota, the properties are not there.
    const admin = davClient(fm.url, 'admin', fm.adminPassword);
    expect((await admin('PROPFIND', '/', { headers: { Depth: '0', 'Content-Type': 'application/xml' }, body })).text).toContain('404 Not Found');
  });
});

describe('GET /api/usage', () => {
  it('answers the quota and the scope’s usage (total/used describe the quota), shared by users of one scope', async () => {
    const u = await quotaUser(1000, 50);
    expect((await put(u, '/sub/a.bin', 100)).status).toBe(200);
    const usage = await u.client.json('/api/usage/sub');
    expect(usage).toEqual({ total: 1000, used: 700, quota: 1000, quotaFiles: 50, bytes: 700, files: 3 });
    const { client: twin } = await createUser(admin, fm, `${u.name}-twin`, { scope: `/${u.name}`, quota: 700, perm: { create: true } });
    expect(await twin.json('/api/usage/')).toMatchObject({ total: 700, used: 700, files: 3 });
    const res = await twin.fetch('/api/resources/one.bin', { method: 'PUT', body: 'x' });
    expect([res.status, await res.text()]).toEqual([507, expect.stringContaining('over quota')]);
  });

  it('a user without a quota gets filebrowser’s total and used of the disk only', async () => {
    const u = await quotaUser(0, 0);
    expect(Object.keys(await u.client.json('/api/usage/')).sort()).toEqual(['total', 'used']);
  });
});

describe('the quota fields', () => {
  it('are in the user object; only an admin may set them, and a bad value is 400', async () => {
    const u = await quotaUser(1000, 10);
    const users = await admin.json<Array<{ username: string; quota: number; quotaFiles: number }>>('/api/users');
    expect(users.find((x) => x.username === u.name)).toMatchObject({ quota: 1000, quotaFiles: 10 });
    const own = await u.client.fetch(`/api/users/${u.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['quota'], current_password: PASSWORD, data: { quota: 0 } },
    });
    expect(own.status).toBe(403);
    const bad = await admin.fetch('/api/users', {
      method: 'POST',
      json: { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'negative', password: PASSWORD, quota: -1 } },
    });
    expect([bad.status, await bad.text()]).toEqual([400, expect.stringContaining('quota')]);
  });

  it('users who sign up take the quota of the new-user defaults', async () => {
    const settings = await admin.json<{ defaults: Record<string, unknown> }>('/api/settings');
    const changed = { ...settings, signup: true, createUserDir: true, defaults: { ...settings.defaults, quota: 5000, quotaFiles: 7 } };
    const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...changed, current_password: fm.adminPassword } });
    expect([res.status, await res.text()]).toEqual([200, expect.anything()]);
    expect((await admin.json<{ defaults: Record<string, unknown> }>('/api/settings')).defaults).toMatchObject({ quota: 5000, quotaFiles: 7 });
    const signup = await fetch(`${fm.url}/api/signup`, { method: 'POST', body: JSON.stringify({ username: 'defaulted', password: PASSWORD }) });
    expect(signup.status).toBe(200);
    const users = await admin.json<Array<{ username: string; quota: number; quotaFiles: number }>>('/api/users');
    expect(users.find((x) => x.username === 'defaulted')).toMatchObject({ quota: 5000, quotaFiles: 7 });
    await admin.fetch('/api/settings', { method: 'PUT', json: { ...settings, current_password: fm.adminPassword } });
  });
});

describe('a restore from the trash', () => {
  it('needs room in the owner quota: 507 leaves the item in the trash, and it restores once there is room', async () => {
    const u = await quotaUser(1000);
    expect((await put(u, '/a.bin', 300)).status).toBe(200);
    expect((await u.client.fetch('/api/resources/a.bin', { method: 'DELETE' })).status).toBe(204);
    expect((await put(u, '/b.bin', 300)).status).toBe(200);
    const [item] = await u.client.json<Array<{ id: string; name: string }>>('/api/trash');
    expect(item.name).toBe('a.bin');
    const refused = await u.client.fetch(`/api/trash/${item.id}?action=restore`, { method: 'POST' });
    expect(refused.status).toBe(507);
    expect(refused.headers.get('X-Fm-Error')).toBe('quota');
    expect(namesIn(u)).toEqual(['b.bin', 'seed.bin']);
    expect((await u.client.json<unknown[]>('/api/trash')).length).toBe(1);

    expect((await u.client.fetch('/api/resources/b.bin', { method: 'DELETE' })).status).toBe(204);
    await expect.poll(async () => (await u.client.fetch(`/api/trash/${item.id}?action=restore`, { method: 'POST' })).status).toBe(200);
    expect(fs.statSync(path.join(u.dir, 'a.bin')).size).toBe(300);
  });

  it('a folder brings back its entries too: an entry quota counts everything below it', async () => {
    const u = await quotaUser(0, 6);
    expect((await u.client.fetch('/api/resources/d/', { method: 'POST' })).status).toBe(200);
    for (const f of ['1', '2', '3']) expect((await put(u, `/d/${f}.txt`, 10)).status).toBe(200);
    expect((await u.client.fetch('/api/resources/d', { method: 'DELETE' })).status).toBe(204);
    expect((await put(u, '/x.txt', 10)).status).toBe(200);
    expect((await put(u, '/y.txt', 10)).status).toBe(200);
    const [item] = await u.client.json<Array<{ id: string; name: string }>>('/api/trash');
    // seed.bin, x.txt, y.txt and the folder with its three files would be 7 entries of 6.
    const refused = await u.client.fetch(`/api/trash/${item.id}?action=restore`, { method: 'POST' });
    expect(refused.status).toBe(507);
    expect(namesIn(u)).toEqual(['seed.bin', 'x.txt', 'y.txt']);
    expect((await u.client.fetch('/api/resources/y.txt', { method: 'DELETE' })).status).toBe(204);
    await expect.poll(async () => (await u.client.fetch(`/api/trash/${item.id}?action=restore`, { method: 'POST' })).status).toBe(200);
    expect(namesIn(u, 'd')).toEqual(['1.txt', '2.txt', '3.txt']);
  });
});

describe('an upload-only link of a user with a quota', () => {
  it('reserves the whole length of a drop placed under a free name (a taken name replaces nothing)', async () => {
    const name = `q${++n}`;
    expect((await admin.fetch(`/api/resources/${name}/inbox/`, { method: 'POST' })).status).toBe(200);
    expect((await admin.fetch(`/api/resources/${name}/inbox/a.txt`, { method: 'PUT', body: new Uint8Array(300) })).status).toBe(200);
    expect((await admin.fetch(`/api/resources/${name}/seed.bin`, { method: 'PUT', body: new Uint8Array(400) })).status).toBe(200);
    const perm = { create: true, modify: true, rename: true, delete: true, share: true, download: true };
    const { client } = await createUser(admin, fm, name, { scope: `/${name}`, quota: 1000, perm });
    const link = await share(client, '/inbox', { uploadOnly: true });
    // 700 bytes used: a 400-byte "a.txt" lands as "a (1).txt", beside the 300 bytes it does not replace.
    const refused = await tusDrop(fm, 'POST', `${link.hash}/a.txt`, { 'Upload-Length': '400' });
    expect(refused.status).toBe(507);
    expect(refused.headers['x-fm-error']).toBe('quota');
    const fits = await tusDrop(fm, 'POST', `${link.hash}/a.txt`, { 'Upload-Length': '300' });
    expect(fits.status).toBe(201);
  });
});
