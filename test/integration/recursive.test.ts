import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, type Client } from '../helpers/server.ts';
import { OUTSIDE_SECRET, TRAVERSALS, rawGet, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;

interface Entry {
  path: string;
  name: string;
  size: number;
  modified: string;
  isDir: boolean;
}

function put(rel: string, data = 'x') {
  const abs = path.join(fm.root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}

async function list(client: Client, dir: string): Promise<Entry[]> {
  const entries = await client.json<Entry[]>(`/api/resources/recursive${dir}`);
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

beforeAll(async () => {
  fm = await startMediaFm();
  admin = await adminClient(fm);
  put('d/x', 'x');
  put('d/sub/y.txt', 'hello');
  put('d/sub/deeper/z.md', '#');
  put('d/.dot', '.');
  put('d/secret/s.txt', 's');
  put('d/secretive/ok.txt', 'ok');
  put('recursive/inside.txt', 'in a folder literally named recursive');
  put('home/bob/b.txt', 'b');
  fs.symlinkSync(path.join(fm.outside, 'outside-secret.txt'), path.join(fm.root, 'd/escape'));
  fs.symlinkSync(path.join(fm.root, 'd/missing'), path.join(fm.root, 'd/dangling'));
});

afterAll(async () => {
  await fm?.stop();
});

describe('GET /api/resources/recursive', () => {
  it('lists every entry under the folder as a flat array, the folder itself excluded', async () => {
    const entries = await list(admin, '/d/sub');
    expect(entries.map((e) => [e.path, e.isDir])).toEqual([
      ['/d/sub/deeper', true],
      ['/d/sub/deeper/z.md', false],
      ['/d/sub/y.txt', false],
    ]);
    const y = entries[2];
    expect(Object.keys(y).sort()).toEqual(['isDir', 'modified', 'name', 'path', 'size']);
    expect(y).toMatchObject({ name: 'y.txt', size: 5, isDir: false });
    expect(Date.parse(y.modified)).toBeGreaterThan(Date.now() - 3_600_000);
  });

  it('lists the root without a trailing slash too, streaming valid JSON', async () => {
    const res = await admin.fetch('/api/resources/recursive');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const entries = (await res.json()) as Entry[];
    expect(entries.map((e) => e.path)).toContain('/d/sub/deeper/z.md');
    expect(entries.map((e) => e.path)).not.toContain('/');
  });

  it('answers a JSON empty array for an empty folder, 400 for a file, 404 for a missing folder', async () => {
    fs.mkdirSync(path.join(fm.root, 'empty'));
    expect(await admin.json('/api/resources/recursive/empty')).toEqual([]);
    expect((await admin.fetch('/api/resources/recursive/d/x')).status).toBe(400);
    expect((await admin.fetch('/api/resources/recursive/nope')).status).toBe(404);
    expect((await fetch(`${fm.url}/api/resources/recursive/d`)).status).toBe(401);
  });

  it('lists a dangling link as a file and leaves out links leading out of the scope', async () => {
    const names = (await list(admin, '/d')).map((e) => e.name);
    expect(names).toContain('dangling');
    expect(names).not.toContain('escape');
  });

  it('takes the prefix for GET, as filebrowser does; a folder named "recursive" stays reachable as //recursive', async () => {
    const flat = await admin.json<Entry[]>('/api/resources/recursive/recursive');
    expect(flat.map((e) => e.path)).toEqual(['/recursive/inside.txt']);
    const viaDoubleSlash = await rawGet(fm.url, '/api/resources//recursive', admin.token);
    expect(viaDoubleSlash.status).toBe(200);
    const listing = JSON.parse(viaDoubleSlash.body.toString()) as { name: string; items: Array<{ name: string }> };
    expect(listing.name).toBe('recursive');
    expect(listing.items.map((i) => i.name)).toEqual(['inside.txt']);
    const viaEncoded = await admin.fetch('/api/resources/%72ecursive');
    expect(((await viaEncoded.json()) as { name: string }).name).toBe('recursive');
    // A name that merely starts with "recursive" is not captured (filebrowser's prefix match would).
    put('recursiveness.txt', 'r');
    expect(((await admin.json<{ name: string }>('/api/resources/recursiveness.txt')) as { name: string }).name).toBe('recursiveness.txt');
  });
});

describe('recursive listing security', () => {
  it('AUTHZ: denied folders are skipped on segment boundaries and hidden dotfiles left out', async () => {
    const { client } = await createUser(admin, fm, 'ruled', { hideDotfiles: true, rules: [{ path: '/d/secret', allow: false }] });
    const found = (await list(client, '/d')).map((e) => e.path);
    expect(found).not.toContain('/d/secret');
    expect(found).not.toContain('/d/secret/s.txt');
    expect(found).not.toContain('/d/.dot');
    expect(found).toContain('/d/secretive/ok.txt');
    expect((await client.fetch('/api/resources/recursive/d/secret')).status).toBe(403);
  });

  it('AUTHZ: a scoped user lists only their scope, with paths relative to it', async () => {
    const { client } = await createUser(admin, fm, 'bob', { scope: '/home/bob' });
    expect((await list(client, '/')).map((e) => e.path)).toEqual(['/b.txt']);
    expect((await rawGet(fm.url, '/api/resources/recursive/..', client.token)).status).toBe(403);
  });

  it('PATH: traversal attempts get 400/403/404 and never reveal anything outside the root', async () => {
    for (const t of TRAVERSALS) {
      const res = await rawGet(fm.url, `/api/resources/recursive${t}`, admin.token);
      expect([400, 403, 404], `${t} → ${res.status}`).toContain(res.status);
      expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
      expect(res.body.toString('latin1')).not.toContain('outside-secret');
    }
  });
});
