import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { davClient, hrefs } from '../helpers/dav.ts';
import { adminClient } from '../helpers/server.ts';
import { spawnFm, type SpawnedFm } from '../helpers/spawn.ts';

describe('first start on an empty database', () => {
  let fm: SpawnedFm;
  beforeAll(async () => {
    fm = await spawnFm({ keep: true, sqlite: true });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(fm.home, { recursive: true, force: true });
  });

  // The admin's password is hashed while the server starts: a login that comes first waits for it.
  it('accepts a login with the printed password sent at once after "listening on"', async () => {
    const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: fm.adminPassword }) });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  // The WebDAV handlers are a chunk of their own that the built binary loads on first use.
  it('answers its first WebDAV requests, sent together, from the lazily loaded module', async () => {
    fs.writeFileSync(path.join(fm.root, 'hello.txt'), 'hi');
    const dav = davClient(fm.url, 'admin', fm.adminPassword);
    const [listing, file] = await Promise.all([dav('PROPFIND', '/', { headers: { Depth: '1' } }), dav('GET', '/hello.txt')]);
    expect(listing.status).toBe(207);
    expect(hrefs(listing.body.toString())).toContain('/dav/hello.txt');
    expect([file.status, file.body.toString()]).toEqual([200, 'hi']);
  });

  it('prints a random admin password once, the database path and the URL', () => {
    expect(fm.adminPassword).toMatch(/^\S{16,}$/);
    expect(fm.output()).toContain(`database: ${fm.dbFile}`);
    expect(fm.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fs.existsSync(fm.dbFile)).toBe(true);
  });

  it('writes the default settings', async () => {
    const admin = await adminClient(fm);
    const s = await admin.json<Record<string, any>>('/api/settings');
    expect(s).toMatchObject({
      signup: false,
      createUserDir: false,
      userHomeBasePath: '/users',
      minimumPasswordLength: 12,
      tus: { chunkSize: 10 * 1024 * 1024, retryCount: 5 },
      fileMode: 0o640,
      dirMode: 0o750,
      rules: [],
      shell: [],
      authMethod: 'json',
    });
    expect(s.commands.before_upload).toEqual([]);
    expect(s.defaults.perm).toMatchObject({ admin: false, execute: false, create: true, download: true });
    expect(JSON.stringify(s)).not.toMatch(/"key"/);
  });

  it('does not create a second admin or print a password on restart', async () => {
    await fm.stop();
    const again = await spawnFm({ home: fm.home, root: fm.root });
    try {
      expect(again.output()).not.toContain('password:');
      const admin = await adminClient({ ...again, adminPassword: fm.adminPassword });
      const users = await admin.json<Array<{ username: string }>>('/api/users');
      expect(users.map((u) => u.username)).toEqual(['admin']);
    } finally {
      await again.stop();
    }
    fm = await spawnFm({ home: fm.home, root: fm.root });
    fm.adminPassword = '';
  });

  it('serves /health', async () => {
    const res = await fetch(`${fm.url}/health`);
    expect(await res.json()).toEqual({ status: 'OK' });
    expect(path.isAbsolute(fm.root)).toBe(true);
  });
});
