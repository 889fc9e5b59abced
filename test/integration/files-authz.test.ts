/**
 * AUTHZ: a permission × endpoint matrix for the files routes (each of create, rename, modify,
 * delete, download, share off in turn; admin implies all), rules that deny a path, hidden
 * dotfiles, and users with different scopes who never see each other's files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSION_NAMES, type PermissionName } from '../../src/api/user.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { listTree, makeTree, rawRequest } from '../helpers/files.ts';

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

interface Endpoint {
  name: string;
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  /** Permissions the endpoint needs (admin implies them). */
  needs: PermissionName[];
  /** Status on success. */
  ok: number;
}

const dest = (p: string) => encodeURIComponent(p);
const ENDPOINTS: Endpoint[] = [
  { name: 'list a folder', method: 'GET', path: '/api/resources/dir', needs: [], ok: 200 },
  { name: 'file info', method: 'GET', path: '/api/resources/file.txt', needs: [], ok: 200 },
  { name: 'checksum', method: 'GET', path: '/api/resources/file.txt?checksum=sha256', needs: ['download'], ok: 200 },
  { name: 'X-Encoding raw bytes', method: 'GET', path: '/api/resources/file.txt', headers: { 'X-Encoding': 'true' }, needs: ['download'], ok: 200 },
  { name: 'raw download', method: 'GET', path: '/api/raw/file.txt', needs: ['download'], ok: 200 },
  { name: 'raw archive', method: 'GET', path: '/api/raw/dir?algo=tar', needs: ['download'], ok: 200 },
  { name: 'raw selection', method: 'GET', path: `/api/raw/?files=${dest('/file.txt,/dir')}`, needs: ['download'], ok: 200 },
  { name: 'create a file', method: 'POST', path: '/api/resources/new.txt', body: 'n', needs: ['create'], ok: 200 },
  { name: 'create a folder', method: 'POST', path: '/api/resources/newdir/', needs: ['create'], ok: 200 },
  { name: 'overwrite with POST', method: 'POST', path: '/api/resources/file.txt?override=true', body: 'o', needs: ['create', 'modify'], ok: 200 },
  { name: 'save with PUT', method: 'PUT', path: '/api/resources/file.txt', body: 's', needs: ['modify'], ok: 200 },
  { name: 'create with PUT', method: 'PUT', path: '/api/resources/put-new.txt', body: 'p', needs: ['create'], ok: 200 },
  { name: 'copy', method: 'PATCH', path: `/api/resources/file.txt?action=copy&destination=${dest('/copy.txt')}`, needs: ['create'], ok: 200 },
  {
    name: 'copy over',
    method: 'PATCH',
    path: `/api/resources/file.txt?action=copy&destination=${dest('/other.txt')}&override=true`,
    needs: ['create', 'modify'],
    ok: 200,
  },
  { name: 'move', method: 'PATCH', path: `/api/resources/file.txt?action=rename&destination=${dest('/moved.txt')}`, needs: ['rename'], ok: 200 },
  {
    name: 'move over',
    method: 'PATCH',
    path: `/api/resources/file.txt?action=rename&destination=${dest('/other.txt')}&override=true`,
    needs: ['rename', 'modify'],
    ok: 200,
  },
  { name: 'delete', method: 'DELETE', path: '/api/resources/file.txt', needs: ['delete'], ok: 204 },
  { name: 'delete a folder', method: 'DELETE', path: '/api/resources/dir', needs: ['delete'], ok: 204 },
];

const FIXTURE = { 'file.txt': 'content', 'other.txt': 'other', dir: { 'a.txt': 'a' } };

function resetScope(scope: string) {
  const dir = path.join(fm.root, scope);
  fs.rmSync(dir, { recursive: true, force: true });
  makeTree(dir, FIXTURE);
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});

describe('AUTHZ: permission × endpoint matrix', () => {
  const rows: Array<[string, Record<PermissionName, boolean>]> = [
    ['all permissions', ALL],
    ...(['create', 'rename', 'modify', 'delete', 'download', 'share'] as PermissionName[]).map(
      // share needs download (the users API refuses share without it), so download off turns share off too
      (p) => [`${p} off`, { ...ALL, [p]: false, ...(p === 'download' ? { share: false } : {}) }] as [string, Record<PermissionName, boolean>],
    ),
    ['nothing', Object.fromEntries(PERMISSION_NAMES.map((p) => [p, false])) as Record<PermissionName, boolean>],
    ['admin only (implies all)', { ...(Object.fromEntries(PERMISSION_NAMES.map((p) => [p, false])) as Record<PermissionName, boolean>), admin: true }],
  ];

  let n = 0;
  for (const [label, perm] of rows) {
    it(label, async () => {
      const scope = `/matrix-${++n}`;
      const username = `matrix${n}`;
      resetScope(scope);
      const { client } = await createUser(admin, fm, username, { scope, perm });
      for (const ep of ENDPOINTS) {
        resetScope(scope);
        const before = listTree(path.join(fm.root, scope));
        const allowed = perm.admin || ep.needs.every((p) => perm[p]);
        const res = await rawRequest(fm.url, ep.path, { method: ep.method, headers: { 'X-Auth': client.token, ...ep.headers }, body: ep.body });
        expect.soft(res.status, `${label}: ${ep.name}`).toBe(allowed ? ep.ok : 403);
        if (!allowed) {
          expect.soft(listTree(path.join(fm.root, scope)), `${label}: ${ep.name} changed nothing`).toEqual(before);
          expect.soft(fs.readFileSync(path.join(fm.root, scope, 'file.txt'), 'utf8')).toBe('content');
          expect(res.body.includes(Buffer.from('content'))).toBe(false);
        }
      }
    });
  }

  it('file info carries content only with download permission (GHSA-67cg-cpj7-qgc9)', async () => {
    resetScope('/nodl');
    const { client } = await createUser(admin, fm, 'nodl', { scope: '/nodl', perm: { ...ALL, download: false, share: false } });
    const info = await client.json<Record<string, unknown>>('/api/resources/file.txt');
    expect(info.content).toBeUndefined();
    expect(info.type).toBe('text');
    const { client: full } = await createUser(admin, fm, 'withdl', { scope: '/nodl', perm: ALL });
    expect((await full.json<Record<string, unknown>>('/api/resources/file.txt')).content).toBe('content');
  });

  it('text without modify permission is textImmutable', async () => {
    resetScope('/nomod');
    const { client } = await createUser(admin, fm, 'nomod', { scope: '/nomod', perm: { ...ALL, modify: false } });
    expect((await client.json<Record<string, unknown>>('/api/resources/file.txt')).type).toBe('textImmutable');
  });

  it('without a token every files route is 401', async () => {
    for (const ep of ENDPOINTS) {
      const res = await rawRequest(fm.url, ep.path, { method: ep.method, body: ep.body });
      expect.soft(res.status, ep.name).toBe(401);
    }
  });
});

describe('AUTHZ: rules', () => {
  let carol: Client;
  const scopeDir = () => path.join(fm.root, 'carol');
  beforeAll(async () => {
    makeTree(scopeDir(), {
      'public.txt': 'pub',
      private: { 'p.txt': 'private-content' },
      mixed: { 'ok.txt': 'ok', 'keep-out': { 'k.txt': 'keep-out-content' } },
      logs: { 'a.log': 'log-content', 'a.txt': 'txt' },
      '.env': 'dotenv-content',
      project: { '.git': { config: 'git-config' }, 'src.ts': 'src' },
    });
    carol = (
      await createUser(admin, fm, 'carol', {
        scope: '/carol',
        hideDotfiles: true,
        perm: ALL,
        rules: [
          { regex: false, allow: false, path: '/private', regexp: { raw: '' } },
          { regex: false, allow: false, path: '/mixed/keep-out', regexp: { raw: '' } },
          { regex: true, allow: false, path: '', regexp: { raw: '\\.log$' } },
        ],
      })
    ).client;
  });
  const send = (method: string, p: string, body?: string) => rawRequest(fm.url, p, { method, headers: { 'X-Auth': carol.token }, body });

  it('a denied path is absent from listings', async () => {
    const names = (await carol.json<{ items: Array<{ name: string }> }>('/api/resources/')).items.map((i) => i.name);
    expect(names.sort()).toEqual(['logs', 'mixed', 'project', 'public.txt']);
    const logs = (await carol.json<{ items: Array<{ name: string }> }>('/api/resources/logs')).items.map((i) => i.name);
    expect(logs).toEqual(['a.txt']);
    const mixed = await carol.json<{ items: Array<{ name: string }>; numDirs: number }>('/api/resources/mixed');
    expect(mixed.items.map((i) => i.name)).toEqual(['ok.txt']);
    expect(mixed.numDirs).toBe(0);
  });

  it('a denied path is 403 when asked for directly, on every route', async () => {
    for (const p of ['/private', '/private/p.txt', '/mixed/keep-out/k.txt', '/logs/a.log', '/.env', '/project/.git/config']) {
      for (const [method, route, body] of [
        ['GET', '/api/resources', undefined],
        ['GET', '/api/raw', undefined],
        ['PUT', '/api/resources', 'x'],
        ['POST', '/api/resources', 'x'],
        ['DELETE', '/api/resources', undefined],
        ['PATCH', '/api/resources', undefined],
      ] as const) {
        const suffix = method === 'PATCH' ? `?action=rename&destination=${dest('/taken')}` : method === 'POST' ? '?override=true' : '';
        const res = await send(method, `${route}${p}${suffix}`, body);
        expect.soft(res.status, `${method} ${route}${p}`).toBe(403);
      }
    }
    for (const to of ['/private/new.txt', '/logs/new.log', '/mixed/keep-out/x']) {
      expect((await send('PATCH', `/api/resources/public.txt?action=copy&destination=${dest(to)}`)).status, to).toBe(403);
    }
    expect(fs.readFileSync(path.join(scopeDir(), 'private', 'p.txt'), 'utf8')).toBe('private-content');
    expect(fs.existsSync(path.join(scopeDir(), 'taken'))).toBe(false);
  });

  it('a denied descendant blocks recursive delete, copy and move', async () => {
    expect((await send('DELETE', '/api/resources/mixed')).status).toBe(403);
    expect((await send('PATCH', `/api/resources/mixed?action=copy&destination=${dest('/mixed2')}`)).status).toBe(403);
    expect((await send('PATCH', `/api/resources/mixed?action=rename&destination=${dest('/mixed2')}`)).status).toBe(403);
    expect((await send('DELETE', '/api/resources/logs')).status).toBe(403);
    expect(listTree(path.join(scopeDir(), 'mixed'))).toEqual(['keep-out/', 'keep-out/k.txt', 'ok.txt']);
    expect(fs.existsSync(path.join(scopeDir(), 'mixed2'))).toBe(false);
  });

  it('copying into a place whose descendants would be denied is refused', async () => {
    makeTree(scopeDir(), { incoming: { 'keep-out': { 'k.txt': 'planted' } } });
    expect((await send('PATCH', `/api/resources/incoming?action=copy&destination=${dest('/mixed')}&override=true`)).status).toBe(403);
    expect(fs.readFileSync(path.join(scopeDir(), 'mixed', 'keep-out', 'k.txt'), 'utf8')).toBe('keep-out-content');
    fs.rmSync(path.join(scopeDir(), 'incoming'), { recursive: true });
  });

  it('denied entries are left out of archives', async () => {
    const tar = await send('GET', '/api/raw/?algo=tar');
    expect(tar.status).toBe(200);
    for (const s of ['private-content', 'keep-out-content', 'log-content', 'dotenv-content', 'git-config'])
      expect(tar.body.includes(Buffer.from(s)), s).toBe(false);
    expect(tar.body.includes(Buffer.from('pub'))).toBe(true);
  });

  it('hidden dotfiles travel with their folder in recursive operations', async () => {
    expect((await send('PATCH', `/api/resources/project?action=copy&destination=${dest('/project-copy')}`)).status).toBe(200);
    expect(listTree(path.join(scopeDir(), 'project-copy'))).toEqual(['.git/', '.git/config', 'src.ts']);
    expect((await send('DELETE', '/api/resources/project-copy')).status).toBe(204);
    expect(fs.existsSync(path.join(scopeDir(), 'project-copy'))).toBe(false);
  });
});

describe("AUTHZ: users with different scopes never see each other's files", () => {
  let dave: Client;
  let erin: Client;
  beforeAll(async () => {
    makeTree(path.join(fm.root, 'dave'), { 'dave.txt': 'dave-private' });
    makeTree(path.join(fm.root, 'erin'), { 'erin.txt': 'erin-private' });
    dave = (await createUser(admin, fm, 'dave', { scope: '/dave', perm: ALL })).client;
    erin = (await createUser(admin, fm, 'erin', { scope: 'erin', perm: ALL })).client;
  });

  it('each sees only their own scope as "/"', async () => {
    const d = await dave.json<{ items: Array<{ name: string; path: string }> }>('/api/resources/');
    expect(d.items.map((i) => i.path)).toEqual(['/dave.txt']);
    const e = await erin.json<{ items: Array<{ name: string }> }>('/api/resources/');
    expect(e.items.map((i) => i.name)).toEqual(['erin.txt']);
  });

  it("no route reaches the other's files", async () => {
    for (const p of ['/erin.txt', '/../erin/erin.txt', '/%2e%2e/erin/erin.txt', '//erin/erin.txt', '/erin/erin.txt']) {
      for (const route of ['/api/resources', '/api/raw']) {
        const res = await rawRequest(fm.url, `${route}${p}`, { headers: { 'X-Auth': dave.token } });
        expect([403, 404], `${route}${p}`).toContain(res.status);
        expect(res.text).not.toContain('erin-private');
      }
    }
    for (const to of ['/../erin/stolen.txt', '../erin/erin.txt']) {
      const res = await rawRequest(fm.url, `/api/resources/dave.txt?action=copy&destination=${dest(to)}&override=true`, {
        method: 'PATCH',
        headers: { 'X-Auth': dave.token },
      });
      expect(res.status).toBe(403);
    }
    const del = await rawRequest(fm.url, '/api/resources/../erin/erin.txt', { method: 'DELETE', headers: { 'X-Auth': dave.token } });
    expect(del.status).toBe(403);
    expect(fs.readFileSync(path.join(fm.root, 'erin', 'erin.txt'), 'utf8')).toBe('erin-private');
    expect(fs.readdirSync(path.join(fm.root, 'erin'))).toEqual(['erin.txt']);
  });

  it('the admin with the root scope sees both', async () => {
    const names = (await admin.json<{ items: Array<{ name: string }> }>('/api/resources/')).items.map((i) => i.name);
    expect(names).toEqual(expect.arrayContaining(['dave', 'erin']));
  });
});
