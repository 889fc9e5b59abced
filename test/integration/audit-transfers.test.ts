/**
 * The audit log for what does not end in one plain request: a tus upload (one entry, by the
 * request that completes it), WebDAV (the same actions as the files API), command runs over the
 * WebSocket (command line, exit code, duration), and a download the client cut short (499).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../../src/api/audit.ts';
import { davClient } from '../helpers/dav.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { runCommand, setSettings } from './exec-helpers.ts';
import { PERMS } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
let carol: { client: Client; id: number; password: string };

const entries = (query: string) => admin.json<AuditEntry[]>(`/api/audit?${query}`);

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  fs.mkdirSync(path.join(fm.root, 'carol'), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'carol/big.bin'), Buffer.alloc(32 * 1024 * 1024, 1));
  admin = await adminClient(fm);
  carol = await createUser(admin, fm, 'carol', { scope: '/carol', perm: { ...PERMS, execute: true }, commands: ['echo', 'false'] });
});
afterAll(async () => {
  await fm?.stop();
});

describe('uploads, WebDAV, commands', () => {
  it('records a tus upload once, when its last chunk arrives, with its size', async () => {
    const c = carol.client;
    const created = await c.fetch('/api/tus/up.txt', { method: 'POST', headers: { 'Upload-Length': '10', 'Tus-Resumable': '1.0.0' } });
    expect(created.status).toBe(201);
    const patch = (offset: number, body: string) =>
      c.fetch('/api/tus/up.txt', {
        method: 'PATCH',
        headers: { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream', 'Tus-Resumable': '1.0.0' },
        body,
      });
    expect((await patch(0, '01234')).status).toBe(204);
    expect(await entries('action=upload')).toEqual([]);
    expect((await patch(5, '56789')).status).toBe(204);
    const ups = await entries('action=upload');
    expect(ups).toHaveLength(1);
    expect(ups[0]).toMatchObject({ actor: 'carol', path: '/up.txt', bytes: 10, status: 204 });
  });

  it('records WebDAV methods under the same action names', async () => {
    const dav = davClient(fm.url, 'carol', carol.password);
    expect((await dav('PUT', '/dav.txt', { body: 'dav!' })).status).toBe(201);
    expect((await dav('GET', '/dav.txt')).status).toBe(200);
    expect((await dav('MKCOL', '/box')).status).toBe(201);
    expect((await dav('MOVE', '/dav.txt', { headers: { Destination: `${fm.url}/dav/box/dav.txt` } })).status).toBe(201);
    expect((await dav('COPY', '/box/dav.txt', { headers: { Destination: `${fm.url}/dav/box/copy.txt` } })).status).toBe(201);
    expect((await dav('DELETE', '/box/copy.txt')).status).toBe(204);
    const log = (await entries('user=carol&limit=6')).reverse();
    expect(log.map((e) => [e.action, e.path, e.dest, e.status])).toEqual([
      ['create', '/dav.txt', null, 201],
      ['download', '/dav.txt', null, 200],
      ['create', '/box', null, 201],
      ['move', '/dav.txt', '/box/dav.txt', 201],
      ['copy', '/box/dav.txt', '/box/copy.txt', 201],
      ['delete', '/box/copy.txt', null, 204],
    ]);
    expect(log[0].bytes).toBe(4);
  });

  it('records a WebDAV LOCK that creates a file, and a PROPPATCH by property names (never values)', async () => {
    const dav = davClient(fm.url, 'carol', carol.password);
    const lockBody =
      '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
    const lock = await dav('LOCK', '/locked.txt', { body: lockBody, headers: { 'Content-Type': 'application/xml' } });
    expect(lock.status).toBe(201);
    const token = String(lock.headers['lock-token']);
    const patch = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:" xmlns:x="urn:x"><D:set><D:prop><Z:Win32LastModifiedTime>Wed, 01 Jan 2020 00:00:00 GMT</Z:Win32LastModifiedTime><x:colour>secret-value</x:colour></D:prop></D:set></D:propertyupdate>`;
    expect((await dav('PROPPATCH', '/locked.txt', { body: patch, headers: { 'Content-Type': 'application/xml', If: `(${token})` } })).status).toBe(207);
    const log = (await entries('user=carol&limit=2')).reverse();
    expect(log.map((e) => [e.action, e.path, e.status, e.detail])).toEqual([
      ['create', '/locked.txt', 201, 'webdav LOCK'],
      ['save', '/locked.txt', 207, 'webdav properties: Win32LastModifiedTime, colour'],
    ]);
    expect(JSON.stringify(log)).not.toContain('secret-value');
  });

  it('records a WebDAV sign-in with a wrong password (not a first request without credentials) as login-failed', async () => {
    expect((await davClient(fm.url, 'carol', 'not-her-password')('PROPFIND', '/', { headers: { Depth: '0' } })).status).toBe(401);
    const anonymous = await fetch(`${fm.url}/dav/`, { method: 'PROPFIND', headers: { Depth: '0' } });
    expect(anonymous.status).toBe(401);
    const failed = (await entries('action=login-failed')).filter((e) => e.detail?.startsWith('webdav'));
    expect(failed.map((e) => [e.actor, e.status, e.detail])).toEqual([['carol', 401, 'webdav']]);
  });

  it('records WebDAV share hits and access tokens made and deleted (by name, never the secret)', async () => {
    fs.writeFileSync(path.join(fm.root, 'carol/shared.txt'), 'shared');
    const s = await carol.client.json<{ hash: string }>('/api/share/shared.txt', { method: 'POST', json: {} });
    expect((await fetch(`${fm.url}/dav-share/${s.hash}/shared.txt`)).status).toBe(200);
    expect((await entries('action=share-hit'))[0]).toMatchObject({
      actor: null,
      share: s.hash,
      path: '/shared.txt',
      detail: 'webdav GET',
      status: 200,
      bytes: 6,
    });
    const made = await carol.client.json<{ id: number; token: string }>('/api/tokens', {
      method: 'POST',
      json: { name: 'backup', expires: 0, readOnly: true, path: '' },
    });
    expect((await carol.client.fetch(`/api/tokens/${made.id}`, { method: 'DELETE' })).status).toBe(204);
    const [deleted, created] = await entries('action=user-change&user=carol');
    expect(created.detail).toBe('user carol: access token "backup" created');
    expect(deleted.detail).toBe(`user carol: access token ${made.id} deleted`);
    const csv = await (await admin.fetch('/api/audit?limit=10000&format=csv')).text();
    expect(csv).not.toContain(made.token);
  });

  it("records a folder-limited token's paths in the user's terms, and refuses it the log (names outside its folder)", async () => {
    fs.mkdirSync(path.join(fm.root, 'carol/photos'), { recursive: true });
    fs.writeFileSync(path.join(fm.root, 'carol/photos/p.jpg'), 'jpeg');
    const limited = await carol.client.json<{ token: string }>('/api/tokens', {
      method: 'POST',
      json: { name: 'photos', expires: 0, readOnly: true, path: '/photos' },
    });
    const bearer = (p: string) => fetch(`${fm.url}${p}`, { headers: { Authorization: `Bearer ${limited.token}` } });
    expect((await bearer('/api/raw/p.jpg')).status).toBe(200);
    expect((await entries('action=download&user=carol'))[0]).toMatchObject({ path: '/photos/p.jpg', status: 200 });
    expect((await bearer('/api/audit')).status).toBe(403);
    const whole = await carol.client.json<{ token: string }>('/api/tokens', { method: 'POST', json: { name: 'all', expires: 0, readOnly: true, path: '' } });
    const own = await fetch(`${fm.url}/api/audit?action=download`, { headers: { Authorization: `Bearer ${whole.token}` } });
    expect(own.status).toBe(200);
    expect(((await own.json()) as AuditEntry[])[0].path).toBe('/photos/p.jpg');
  });

  it('records a command run with its line, exit code and duration', async () => {
    await setSettings(admin, { enableExec: true });
    const r = await runCommand(fm, '/api/command/', 'echo hello, audit', { token: carol.client.token });
    expect(r.final, JSON.stringify(r)).toMatchObject({ type: 'exit', code: 0 });
    const f = await runCommand(fm, '/api/command/', 'false', { token: carol.client.token });
    expect(f.final).toMatchObject({ type: 'exit', code: 1 });
    const [failed, ok] = await entries('action=command');
    expect(ok).toMatchObject({ actor: 'carol', path: '/', detail: 'echo hello, audit', status: 0, address: '127.0.0.1' });
    expect(failed).toMatchObject({ detail: 'false', status: 1 });
    expect(ok.duration).toBeGreaterThanOrEqual(0);
  });

  it('records a download the client cut short as 499', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${fm.url}/api/raw/big.bin`, { headers: { 'X-Auth': carol.client.token } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (err.message.includes('aborted') || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve() : reject(err)));
    });
    // The entry is written when the server sees the connection close: poll for it.
    await vi.waitFor(async () => expect((await entries('action=download&user=carol')).find((e) => e.path === '/big.bin')).toMatchObject({ status: 499 }), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
