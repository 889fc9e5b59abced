/**
 * AUTHZ over WebDAV: the permission × method matrix of files-authz.test.ts. Each WebDAV method
 * needs exactly the permissions of the files API operation it is (download for GET, create for
 * a new PUT, MKCOL and a COPY, modify to overwrite or PROPPATCH, rename for MOVE, delete for
 * DELETE); a refused request changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionName } from '../../src/api/user.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { listTree, makeTree } from '../helpers/files.ts';
import { davClient, LOCK_BODY } from '../helpers/dav.ts';

let fm: FmServer;
let admin: Client;

const ALL: Record<PermissionName, boolean> = {
  admin: false,
  execute: false,
  create: true,
  rename: true,
  modify: true,
  delete: true,
  share: true,
  download: true,
};

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  needs: PermissionName[];
  ok: number;
}

const PATCH = '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><z xmlns="urn:z">1</z></D:prop></D:set></D:propertyupdate>';
const CASES: Case[] = [
  { name: 'PROPFIND a folder', method: 'PROPFIND', path: '/dir/', headers: { Depth: '1' }, needs: [], ok: 207 },
  { name: 'GET a file', method: 'GET', path: '/file.txt', needs: ['download'], ok: 200 },
  { name: 'PUT a new file', method: 'PUT', path: '/new.txt', body: 'n', needs: ['create'], ok: 201 },
  { name: 'PUT over a file', method: 'PUT', path: '/file.txt', body: 'o', needs: ['modify'], ok: 204 },
  { name: 'MKCOL', method: 'MKCOL', path: '/newdir', needs: ['create'], ok: 201 },
  { name: 'COPY to a new name', method: 'COPY', path: '/file.txt', headers: { Destination: '/dav/copy.txt' }, needs: ['create'], ok: 201 },
  { name: 'COPY over a file', method: 'COPY', path: '/file.txt', headers: { Destination: '/dav/other.txt' }, needs: ['create', 'modify'], ok: 204 },
  { name: 'MOVE to a new name', method: 'MOVE', path: '/file.txt', headers: { Destination: '/dav/moved.txt' }, needs: ['rename'], ok: 201 },
  { name: 'MOVE over a file', method: 'MOVE', path: '/file.txt', headers: { Destination: '/dav/other.txt' }, needs: ['rename', 'modify'], ok: 204 },
  { name: 'DELETE a file', method: 'DELETE', path: '/file.txt', needs: ['delete'], ok: 204 },
  { name: 'DELETE a folder', method: 'DELETE', path: '/dir/', needs: ['delete'], ok: 204 },
  { name: 'PROPPATCH', method: 'PROPPATCH', path: '/file.txt', body: PATCH, needs: ['modify'], ok: 207 },
  { name: 'LOCK a missing name (creates it)', method: 'LOCK', path: '/locked-new.txt', body: LOCK_BODY(), needs: ['create'], ok: 201 },
];

const FIXTURE = { 'file.txt': 'content', 'other.txt': 'other', dir: { 'a.txt': 'a' } };

beforeAll(async () => {
  fm = await startFm({ args: ['--log', 'off'] });
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

describe('AUTHZ: permission × WebDAV method matrix', () => {
  const rows: Array<[string, Record<PermissionName, boolean>]> = [
    ['all permissions', ALL],
    ...(['create', 'rename', 'modify', 'delete', 'download'] as const).map((p): [string, Record<PermissionName, boolean>] => [
      `no ${p}`,
      { ...ALL, [p]: false, share: p !== 'download' },
    ]),
    ['admin only', { ...ALL, admin: true, create: false, rename: false, modify: false, delete: false, download: false }],
  ];
  let n = 0;
  for (const [label, perm] of rows) {
    it(`${label}: each method is allowed exactly when the API would allow it`, async () => {
      const username = `u${++n}`;
      const scope = `/matrix-${n}`;
      const dir = path.join(fm.root, scope);
      const { password } = await createUser(admin, fm, username, { scope, perm });
      const dav = davClient(fm.url, username, password);
      for (const c of CASES) {
        fs.rmSync(dir, { recursive: true, force: true });
        makeTree(dir, FIXTURE);
        const before = listTree(dir).map((p) => `${p}:${fs.lstatSync(path.join(dir, p)).isFile() ? fs.readFileSync(path.join(dir, p), 'utf8') : ''}`);
        const res = await dav(c.method, c.path, { headers: c.headers, body: c.body });
        const allowed = perm.admin || c.needs.every((p) => perm[p]);
        expect.soft(res.status, `${label}: ${c.name} -> ${res.text.slice(0, 100)}`).toBe(allowed ? c.ok : 403);
        if (!allowed) {
          const after = listTree(dir).map((p) => `${p}:${fs.lstatSync(path.join(dir, p)).isFile() ? fs.readFileSync(path.join(dir, p), 'utf8') : ''}`);
          expect.soft(after, `${label}: ${c.name} changed something`).toEqual(before);
        }
      }
    });
  }

  it('LOCK of an existing file needs modify; of a folder, create or modify', async () => {
    makeTree(path.join(fm.root, 'lockers'), { 'f.txt': 'f', d: {} });
    const creator = await createUser(admin, fm, 'creator', { scope: '/lockers', perm: { ...ALL, modify: false } });
    const asCreator = davClient(fm.url, 'creator', creator.password);
    expect((await asCreator('LOCK', '/f.txt', { body: LOCK_BODY() })).status).toBe(403);
    const folder = await asCreator('LOCK', '/d', { body: LOCK_BODY() });
    expect(folder.status).toBe(200);
    expect((await asCreator('UNLOCK', '/d', { headers: { 'Lock-Token': String(folder.headers['lock-token']) } })).status).toBe(204);
    const modifier = await createUser(admin, fm, 'modifier', { scope: '/lockers', perm: { ...ALL, create: false } });
    expect((await davClient(fm.url, 'modifier', modifier.password)('LOCK', '/f.txt', { body: LOCK_BODY() })).status).toBe(200);
  });

  it('a create-only user may set the time of the file it creates (X-OC-Mtime), not of an existing one', async () => {
    makeTree(path.join(fm.root, 'timers'), { 'old.txt': 'o' });
    const { password } = await createUser(admin, fm, 'timer', { scope: '/timers', perm: { ...ALL, modify: false } });
    const dav = davClient(fm.url, 'timer', password);
    expect((await dav('PUT', '/new.txt', { headers: { 'X-OC-Mtime': '1500000000' }, body: 'n' })).status).toBe(201);
    expect(fs.statSync(path.join(fm.root, 'timers', 'new.txt')).mtimeMs).toBe(1_500_000_000_000);
    expect((await dav('PUT', '/old.txt', { headers: { 'X-OC-Mtime': '1500000000' }, body: 'x' })).status).toBe(403);
  });
});
