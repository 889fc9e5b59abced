/**
 * The database's disk is full (for real: a small tmpfs holds it, then a filler file takes the
 * rest). Writes answer 507 with a clear message instead of 500; a logout that cannot be stored
 * still ends the session at once (held in memory) and says so; once space is back, writes work.
 * Mounting needs root (CI runs as root); elsewhere the file is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { fillUp, mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('database disk full (needs root to mount a tmpfs; skipped otherwise)', () => {
  let home: string;
  let disk: Tmpfs;
  let fm: FmServer;
  let admin: Client;
  let bob: { client: Client; id: number; password: string };
  let filler: string;

  beforeAll(async () => {
    home = tempDir();
    disk = mountTmpfs(path.join(home, 'db'), '4m');
    fm = await startFm({ home, args: ['--database', path.join(disk.dir, 'fm.db'), '--cache-dir', path.join(home, 'cache'), '--no-index'] });
    admin = await adminClient(fm);
    bob = await createUser(admin, fm, 'bob', {}, 'bob-long-password-1');
    fs.writeFileSync(path.join(fm.root, 'shared.txt'), 'to share');
    filler = fillUp(disk.dir);
  });
  afterAll(async () => {
    await fm?.stop();
    disk?.unmount();
    fs.rmSync(home, { recursive: true, force: true });
  });

  const expect507 = async (res: Response) => {
    const text = await res.text();
    expect(res.status, text).toBe(507);
    expect(text).toMatch(/^507 Insufficient Storage: .*(disk|space)/);
    expect(text).not.toMatch(/internal error/);
    return text;
  };

  it('creating a user answers 507, not 500', async () => {
    const res = await admin.fetch('/api/users', {
      method: 'POST',
      json: { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'carol', password: 'carol-long-password-1' } },
    });
    await expect507(res);
  });

  it('creating a share answers 507', async () => {
    await expect507(await admin.fetch('/api/share/shared.txt', { method: 'POST', json: {} }));
  });

  it('changing a password answers 507 and changes nothing', async () => {
    const res = await bob.client.fetch(`/api/users/${bob.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['password'], current_password: bob.password, data: { id: bob.id, password: 'bob-new-password-22' } },
    });
    await expect507(res);
    await new Client(fm.url).login('bob', bob.password);
  });

  it('a logout that cannot be stored still revokes the token at once, and the answer says so', async () => {
    const session = new Client(fm.url);
    await session.login('bob', bob.password);
    expect((await session.fetch(`/api/users/${bob.id}`)).status).toBe(200);
    const text = await expect507(await session.fetch('/api/logout', { method: 'POST' }));
    expect(text).toMatch(/logged out/);
    expect((await session.fetch(`/api/users/${bob.id}`)).status).toBe(401);
    expect((await session.fetch('/api/renew', { method: 'POST' })).status).toBe(401);
    // Other sessions are untouched.
    expect((await bob.client.fetch(`/api/users/${bob.id}`)).status).toBe(200);
  });

  it('works again once there is space', async () => {
    fs.rmSync(filler);
    const res = await admin.fetch('/api/users', {
      method: 'POST',
      json: { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'carol', password: 'carol-long-password-1' } },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await admin.fetch('/api/share/shared.txt', { method: 'POST', json: {} })).status).toBe(200);
  });
});
