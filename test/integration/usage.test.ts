import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, type Client } from '../helpers/server.ts';
import { OUTSIDE_SECRET, TRAVERSALS, rawGet, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;

beforeAll(async () => {
  fm = await startMediaFm();
  admin = await adminClient(fm);
  fs.mkdirSync(path.join(fm.root, 'docs/private'), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'docs/a.txt'), 'hello');
});

afterAll(async () => {
  await fm?.stop();
});

/** `df` in bytes for the file system holding `dir`: [size, used]. */
function df(dir: string): [number, number] {
  const out = execFileSync('df', ['-B1', '--output=size,used', dir], { encoding: 'utf8' });
  const [size, used] = out.trim().split('\n')[1].trim().split(/\s+/).map(Number);
  return [size, used];
}

describe('GET /api/usage', () => {
  it('reports total and used bytes of the file system holding the folder, as df does', async () => {
    const usage = await admin.json<{ total: number; used: number }>('/api/usage/docs');
    expect(Object.keys(usage).sort()).toEqual(['total', 'used']);
    const [size, used] = df(fm.root);
    expect(usage.total).toBe(size);
    // Other processes write to the same disk meanwhile: compare within 2%.
    expect(Math.abs(usage.used - used)).toBeLessThanOrEqual(size * 0.02);
    expect(usage.used).toBeGreaterThan(0);
    expect(usage.used).toBeLessThanOrEqual(usage.total);
  });

  it('works for the root with and without a trailing slash', async () => {
    const a = await admin.json<{ total: number }>('/api/usage');
    const b = await admin.json<{ total: number }>('/api/usage/');
    expect(a.total).toBe(b.total);
    expect(a.total).toBeGreaterThan(0);
  });

  it('answers 0/0 for a file, as filebrowser does', async () => {
    expect(await admin.json('/api/usage/docs/a.txt')).toEqual({ total: 0, used: 0 });
  });

  it('answers 404 for a missing path and 401 without a login', async () => {
    expect((await admin.fetch('/api/usage/nope')).status).toBe(404);
    expect((await fetch(`${fm.url}/api/usage/`)).status).toBe(401);
  });

  it('AUTHZ: a rule that denies a folder denies its usage; users need no download permission', async () => {
    const { client } = await createUser(admin, fm, 'ruled', { perm: { download: false }, rules: [{ path: '/docs/private', allow: false }] });
    expect((await client.fetch('/api/usage/docs/private')).status).toBe(403);
    expect((await client.fetch('/api/usage/docs')).status).toBe(200);
  });

  it('PATH: traversal attempts get 400/403/404 and never reveal anything outside the root', async () => {
    for (const t of TRAVERSALS) {
      const res = await rawGet(fm.url, `/api/usage${t}`, admin.token);
      expect([400, 403, 404], `${t} → ${res.status}`).toContain(res.status);
      expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
    }
  });

  it('SYML: a link to a folder outside the scope is refused', async () => {
    fs.symlinkSync(fm.outside, path.join(fm.root, 'out-link'));
    expect((await admin.fetch('/api/usage/out-link')).status).toBe(403);
  });
});
