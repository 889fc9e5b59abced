/**
 * The trash through HTTP (docs/trash.md): DELETE and WebDAV DELETE move into the user's trash
 * by one rename; the trash never shows in listings, search, shares, archives or WebDAV;
 * GET/POST/DELETE /api/trash list, restore (409 on a clash unless rename/override), delete for
 * good and empty, with the permissions each needs; names are bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TrashItem } from '../../src/api/trash.ts';
import { davClient } from '../helpers/dav.ts';
import { makeTree } from '../helpers/files.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS, publicInfo, share } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
const abs = (p: string) => path.join(fm.root, p);
const trashOf = (uid: number) => path.join(fm.root, '.fm-trash', String(uid));

const del = (c: Client, p: string) => c.fetch(`/api/resources${p}`, { method: 'DELETE' });
const items = (c: Client = admin) => c.json<TrashItem[]>('/api/trash');
const restore = (id: string, extra = '', c: Client = admin) => c.fetch(`/api/trash/${id}?action=restore${extra}`, { method: 'POST' });
const names = async (p: string) => (await admin.json<{ items: Array<{ name: string }> }>(`/api/resources${p}`)).items.map((i) => i.name);

async function setSettings(changes: Record<string, unknown>) {
  const current = await admin.json<Record<string, unknown>>('/api/settings');
  expect((await admin.fetch('/api/settings', { method: 'PUT', json: { ...current, ...changes } })).status).toBe(200);
}

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});
beforeEach(async () => {
  await admin.fetch('/api/trash', { method: 'DELETE' });
  for (const e of fs.readdirSync(fm.root)) if (e !== '.fm-trash') fs.rmSync(abs(e), { recursive: true, force: true });
});

describe('DELETE moves into the trash', () => {
  it('by one rename, with name, original path, time and size; the item leaves the listing', async () => {
    makeTree(fm.root, { docs: { 'report.txt': 'hello', sub: { 'a.bin': Buffer.alloc(1000), 'b.bin': Buffer.alloc(24) } } });
    const ino = fs.statSync(abs('docs/report.txt')).ino;
    const before = Date.now();
    expect((await del(admin, '/docs/report.txt')).status).toBe(204);
    expect((await del(admin, '/docs/sub')).status).toBe(204);
    expect(await names('/docs')).toEqual([]);
    const list = await items();
    expect(list.map(({ name, path, size, isDir }) => ({ name, path, size, isDir })).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'report.txt', path: '/docs/report.txt', size: 5, isDir: false },
      { name: 'sub', path: '/docs/sub', size: 1024, isDir: true },
    ]);
    for (const i of list) expect(Date.parse(i.deleted)).toBeGreaterThanOrEqual(before - 1000);
    const file = list.find((i) => i.name === 'report.txt')!;
    // The same inode: moved, not copied. Its record sits beside it.
    expect(fs.statSync(path.join(trashOf(1), 'files', file.id)).ino).toBe(ino);
    expect(JSON.parse(fs.readFileSync(path.join(trashOf(1), 'info', `${file.id}.json`), 'utf8'))).toMatchObject({ path: '/docs/report.txt' });
  });

  it('WebDAV DELETE too', async () => {
    makeTree(fm.root, { 'dav.txt': 'x' });
    const dav = davClient(fm.url, 'admin', fm.adminPassword);
    expect((await dav('DELETE', '/dav.txt')).status).toBe(204);
    expect(fs.existsSync(abs('dav.txt'))).toBe(false);
    expect((await items()).map((i) => i.path)).toEqual(['/dav.txt']);
  });

  it('with the trash off (retention 0) removes at once, and what is in the trash stays', async () => {
    makeTree(fm.root, { 'kept.txt': 'k', 'gone.txt': 'g' });
    await del(admin, '/kept.txt');
    await setSettings({ trashRetention: 0 });
    try {
      expect((await del(admin, '/gone.txt')).status).toBe(204);
      expect((await items()).map((i) => i.name)).toEqual(['kept.txt']);
    } finally {
      await setSettings({ trashRetention: 30 * 86400 });
    }
  });
});

describe('the trash is hidden everywhere', () => {
  beforeEach(async () => {
    makeTree(fm.root, { 'secret-trashed.txt': 'in the trash', visible: { 'v.txt': 'v' } });
    await del(admin, '/secret-trashed.txt');
    expect(fs.readdirSync(fm.root)).toContain('.fm-trash');
  });

  it('from listings, and its path is not found', async () => {
    expect(await names('/')).toEqual(['visible']);
    expect((await admin.fetch('/api/resources/.fm-trash')).status).toBe(404);
    // Inside fm's own folder: 403 or 404, never a listing.
    expect([403, 404]).toContain((await admin.fetch('/api/resources/.fm-trash/1/files')).status);
    expect([403, 404]).toContain((await admin.fetch('/api/resources/.fm-trash/x.txt', { method: 'POST', body: 'x' })).status);
    expect(fs.existsSync(abs('.fm-trash/x.txt'))).toBe(false);
  });

  it('from search', async () => {
    const res = await admin.fetch('/api/search/?query=secret');
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain('secret-trashed');
  });

  it('from archives', async () => {
    const res = await admin.fetch('/api/raw/?algo=tar');
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
    expect(body).toContain('v.txt');
    expect(body).not.toContain('.fm-trash');
    expect(body).not.toContain('in the trash');
  });

  it('a share of a deleted item ends with the delete (the trash does not keep links)', async () => {
    makeTree(fm.root, { 'shared.txt': 's' });
    const s = await share(admin, '/shared.txt');
    expect((await publicInfo(fm, s.hash)).status).toBe(200);
    await del(admin, '/shared.txt');
    expect((await publicInfo(fm, s.hash)).status).toBe(404);
  });

  it('from a share of the whole root', async () => {
    const s = await share(admin, '/');
    const res = await publicInfo(fm, s.hash);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('visible');
    expect(text).not.toContain('.fm-trash');
    expect((await publicInfo(fm, s.hash, '/.fm-trash')).status).toBe(404);
  });

  it('from WebDAV', async () => {
    const dav = davClient(fm.url, 'admin', fm.adminPassword);
    const res = await dav('PROPFIND', '/', { headers: { Depth: '1' } });
    expect(res.status).toBe(207);
    expect(res.body.toString()).toContain('visible');
    expect(res.body.toString()).not.toContain('fm-trash');
    expect((await dav('PROPFIND', '/.fm-trash/', { headers: { Depth: '1' } })).status).toBe(404);
  });
});

describe('restore', () => {
  it('puts an item back at its path, recreating missing parents', async () => {
    makeTree(fm.root, { a: { b: { 'c.txt': 'C' } } });
    await del(admin, '/a/b/c.txt');
    await del(admin, '/a');
    const c = (await items()).find((i) => i.name === 'c.txt')!;
    const res = await restore(c.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ path: '/a/b/c.txt' });
    expect(fs.readFileSync(abs('a/b/c.txt'), 'utf8')).toBe('C');
    expect((await items()).map((i) => i.name)).toEqual(['a']);
  });

  it('a clash is 409; rename keeps both as "name (1).ext"; override replaces and trashes what was there', async () => {
    makeTree(fm.root, { 'n.txt': 'old' });
    await del(admin, '/n.txt');
    const first = (await items())[0];
    makeTree(fm.root, { 'n.txt': 'new' });
    expect((await restore(first.id)).status).toBe(409);
    expect((await restore(first.id, '&rename=true')).status).toBe(200);
    expect(fs.readFileSync(abs('n (1).txt'), 'utf8')).toBe('old');
    expect(fs.readFileSync(abs('n.txt'), 'utf8')).toBe('new');

    await del(admin, '/n (1).txt');
    fs.renameSync(abs('n.txt'), abs('keep.txt'));
    makeTree(fm.root, { 'n (1).txt': 'third' });
    const again = (await items())[0];
    expect(await (await restore(again.id, '&override=true')).json()).toEqual({ path: '/n (1).txt' });
    expect(fs.readFileSync(abs('n (1).txt'), 'utf8')).toBe('old');
    const left = await items();
    expect(left.map((i) => i.name)).toEqual(['n (1).txt']);
    expect(fs.readFileSync(path.join(trashOf(1), 'files', left[0].id), 'utf8')).toBe('third');
  });

  it('names are bytes: a non-UTF-8 name is deleted and restored intact', async () => {
    const name = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.txt')]);
    fs.writeFileSync(Buffer.concat([Buffer.from(`${fm.root}/`), name]), 'latin1');
    const shown = (await names('/'))[0];
    // The wire form of an invalid byte: U+F7xx (disk/names.ts).
    expect(shown).toBe('caf\uf7e9.txt');
    expect((await admin.fetch(`/api/resources/${encodeURIComponent(shown)}`, { method: 'DELETE' })).status).toBe(204);
    const [item] = await items();
    expect(item.name).toBe(shown);
    expect((await restore(item.id)).status).toBe(200);
    const back = fs.readdirSync(Buffer.from(fm.root), { encoding: 'buffer' });
    expect(back.some((n) => n.equals(name))).toBe(true);
  });

  it('404 for an unknown id, 400 for a bad action', async () => {
    expect((await restore('0123456789abcdef01')).status).toBe(404);
    expect((await admin.fetch('/api/trash/..?action=restore', { method: 'POST' })).status).toBeGreaterThanOrEqual(400);
    makeTree(fm.root, { 'x.txt': 'x' });
    await del(admin, '/x.txt');
    expect((await admin.fetch(`/api/trash/${(await items())[0].id}?action=burn`, { method: 'POST' })).status).toBe(400);
  });
});

describe('delete for good, empty, permissions, owners', () => {
  it('DELETE /api/trash/{id} removes one item; DELETE /api/trash empties', async () => {
    makeTree(fm.root, { 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    for (const n of ['a', 'b', 'c']) await del(admin, `/${n}.txt`);
    const a = (await items()).find((i) => i.name === 'a.txt')!;
    expect((await admin.fetch(`/api/trash/${a.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(fs.existsSync(path.join(trashOf(1), 'files', a.id))).toBe(false);
    expect((await items()).map((i) => i.name).sort()).toEqual(['b.txt', 'c.txt']);
    expect((await admin.fetch('/api/trash', { method: 'DELETE' })).status).toBe(204);
    expect(await items()).toEqual([]);
    expect(fs.readdirSync(path.join(trashOf(1), 'files'))).toEqual([]);
    expect(fs.readdirSync(path.join(trashOf(1), 'info'))).toEqual([]);
  });

  it('each user sees only their own items; restoring needs create, deleting for good needs delete', async () => {
    fs.mkdirSync(abs('users/bob'), { recursive: true });
    const bob = await createUser(admin, fm, `bob${Date.now()}`, { scope: '/users/bob', perm: PERMS });
    makeTree(abs('users/bob'), { 'b.txt': 'b' });
    expect((await del(bob.client, '/b.txt')).status).toBe(204);
    const [item] = await items(bob.client);
    expect(item).toMatchObject({ name: 'b.txt', path: '/b.txt' });
    expect(await items()).toEqual([]);
    expect((await restore(item.id)).status).toBe(404);

    const setPerm = async (perm: Record<string, boolean>) => {
      const res = await admin.fetch(`/api/users/${bob.id}`, {
        method: 'PUT',
        json: { what: 'user', which: ['perm'], current_password: fm.adminPassword, data: { id: bob.id, perm: { ...PERMS, ...perm } } },
      });
      expect(res.status).toBe(200);
    };
    await setPerm({ create: false });
    expect((await restore(item.id, '', bob.client)).status).toBe(403);
    await setPerm({ delete: false });
    expect((await bob.client.fetch(`/api/trash/${item.id}`, { method: 'DELETE' })).status).toBe(403);
    expect((await bob.client.fetch('/api/trash', { method: 'DELETE' })).status).toBe(403);
    expect((await restore(item.id, '', bob.client)).status).toBe(200);
    expect(fs.readFileSync(abs('users/bob/b.txt'), 'utf8')).toBe('b');
  });
});

describe('access tokens', () => {
  it('a read-only token lists but changes nothing; a token limited to a folder cannot use the trash', async () => {
    makeTree(fm.root, { 't.txt': 't', sub: {} });
    await del(admin, '/t.txt');
    const [item] = await items();
    const token = async (body: Record<string, unknown>) => {
      const res = await admin.fetch('/api/tokens', { method: 'POST', json: { name: `t${Date.now()}`, ...body } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { token: string }).token;
    };
    const bearer = (t: string, p: string, method = 'GET') => fetch(`${fm.url}${p}`, { method, headers: { Authorization: `Bearer ${t}` } });
    const readOnly = await token({ readOnly: true });
    expect((await bearer(readOnly, '/api/trash')).status).toBe(200);
    expect((await bearer(readOnly, `/api/trash/${item.id}?action=restore`, 'POST')).status).toBe(403);
    expect((await bearer(readOnly, '/api/trash', 'DELETE')).status).toBe(403);
    const folder = await token({ path: '/sub' });
    expect((await bearer(folder, '/api/trash')).status).toBe(403);
    expect((await items()).map((i) => i.id)).toEqual([item.id]);
  });
});

describe('crash safety: the trash reconciles what a crash left', () => {
  it('a record without its item is dropped; an item without a record is listed with what is known', async () => {
    makeTree(fm.root, { 'real.txt': 'r' });
    await del(admin, '/real.txt');
    // A crash between writing the record and the rename: the item stayed in place.
    fs.writeFileSync(
      path.join(trashOf(1), 'info', 'deadbeef.json'),
      JSON.stringify({ name: 'ghost', path: '/ghost', deleted: Date.now(), size: 1, isDir: false }),
    );
    // An item whose record is lost.
    fs.writeFileSync(path.join(trashOf(1), 'files', 'orphan0001'), 'orphan');
    const list = await items();
    expect(list.map((i) => [i.name, i.path]).sort()).toEqual([
      ['orphan0001', ''],
      ['real.txt', '/real.txt'],
    ]);
    expect(fs.existsSync(path.join(trashOf(1), 'info', 'deadbeef.json'))).toBe(false);
    expect((await restore('orphan0001')).status).toBe(200);
    expect(fs.readFileSync(abs('orphan0001'), 'utf8')).toBe('orphan');
  });
});
