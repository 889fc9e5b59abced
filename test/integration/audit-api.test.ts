/** The audit log over HTTP: what each action records, the filters, the paging, CSV, and who reads what (AUTHZ, LEAK). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditStatus } from '../../src/api/audit.ts';
import { adminClient, Client, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { PERMS, share } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
let alice: { client: Client; id: number; password: string };
let bob: { client: Client; id: number; password: string };

/** The newest entries matching a query string, as admin unless another client is given. */
async function entries(query = '', as: Client = admin): Promise<AuditEntry[]> {
  return as.json<AuditEntry[]>(`/api/audit${query ? `?${query}` : ''}`);
}

const ok = async (res: Response) => {
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res;
};

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  for (const dir of ['alice/docs/sub', 'bob']) fs.mkdirSync(path.join(fm.root, dir), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'alice/docs/a.txt'), 'alpha');
  fs.writeFileSync(path.join(fm.root, 'alice/docs/sub/b.txt'), 'beta!');
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  bob = await createUser(admin, fm, 'bob', { scope: '/bob', perm: PERMS });
});

afterAll(async () => {
  await fm?.stop();
});

describe('what is recorded', () => {
  it('records logins, failed logins (with the name tried) and logouts, with the client address', async () => {
    const failed = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'alice', password: 'wrong-password' }) });
    expect(failed.status).toBe(403);
    const [fail] = await entries('action=login-failed');
    expect(fail).toMatchObject({ actor: 'alice', action: 'login-failed', status: 403, address: '127.0.0.1' });
    const c = new Client(fm.url);
    await c.login('alice', alice.password);
    const [login] = await entries('action=login&user=alice');
    expect(login).toMatchObject({ actor: 'alice', status: 200, address: '127.0.0.1' });
    expect(Date.parse(login.time)).toBeGreaterThan(Date.now() - 60_000);
    await ok(await c.fetch('/api/logout', { method: 'POST' }));
    expect((await entries('action=logout'))[0]).toMatchObject({ actor: 'alice', status: 200 });
    const renewed = await alice.client.fetch('/api/renew', { method: 'POST' });
    alice.client.token = await renewed.text();
    expect((await entries('action=renew'))[0]).toMatchObject({ actor: 'alice', status: 200 });
  });

  it('records create, save (with bytes), rename, move, copy and delete, failures too', async () => {
    const c = alice.client;
    await ok(await c.fetch('/api/resources/docs/new.txt', { method: 'POST', body: 'hello' }));
    await ok(await c.fetch('/api/resources/docs/new.txt', { method: 'PUT', body: 'hello world' }));
    await ok(await c.fetch(`/api/resources/docs/new.txt?action=rename&destination=${encodeURIComponent('/docs/renamed.txt')}`, { method: 'PATCH' }));
    await ok(await c.fetch(`/api/resources/docs/renamed.txt?action=rename&destination=${encodeURIComponent('/docs/sub/moved.txt')}`, { method: 'PATCH' }));
    await ok(await c.fetch(`/api/resources/docs/sub/moved.txt?action=copy&destination=${encodeURIComponent('/docs/copy.txt')}`, { method: 'PATCH' }));
    await ok(await c.fetch('/api/resources/docs/copy.txt', { method: 'DELETE' }));
    expect((await c.fetch('/api/resources/docs/missing.txt', { method: 'DELETE' })).status).toBe(404);
    const log = (await entries('user=alice&limit=7')).reverse();
    expect(log.map((e) => [e.action, e.path, e.dest, e.status])).toEqual([
      ['create', '/docs/new.txt', null, 200],
      ['save', '/docs/new.txt', null, 200],
      ['rename', '/docs/new.txt', '/docs/renamed.txt', 200],
      ['move', '/docs/renamed.txt', '/docs/sub/moved.txt', 200],
      ['copy', '/docs/sub/moved.txt', '/docs/copy.txt', 200],
      ['delete', '/docs/copy.txt', null, 204],
      ['delete', '/docs/missing.txt', null, 404],
    ]);
    expect(log[1].bytes).toBe(11);
  });

  it('records downloads with their bytes, archives with their entries, previews of text; not listings', async () => {
    const c = alice.client;
    await ok(await c.fetch('/api/raw/docs/a.txt'));
    const [file] = await entries('action=download&user=alice');
    expect(file).toMatchObject({ path: '/docs/a.txt', bytes: 5, status: 200 });
    await ok(await c.fetch('/api/raw/docs/a.txt', { method: 'HEAD' }));
    expect((await entries('action=download&user=alice'))[0]).toEqual(file);
    const zip = await ok(await c.fetch(`/api/raw/docs/?files=${encodeURIComponent('a.txt,sub')}&algo=zip`));
    await zip.arrayBuffer();
    const [archive] = await entries('action=download&user=alice');
    expect(archive.path).toBe('/docs');
    expect(JSON.parse(archive.detail!)).toEqual(['/docs/a.txt', '/docs/sub']);
    const before = (await entries('user=alice&limit=1'))[0];
    await c.json('/api/resources/docs/');
    expect((await entries('user=alice&limit=1'))[0]).toEqual(before);
    await c.json('/api/resources/docs/a.txt');
    expect((await entries('user=alice&limit=1'))[0]).toMatchObject({ action: 'preview', path: '/docs/a.txt', bytes: 5 });
  });

  it('records share creation, every public hit with the hash, and deletion', async () => {
    const s = await share(alice.client, '/docs');
    expect((await entries('action=share-create'))[0]).toMatchObject({ actor: 'alice', share: s.hash, path: '/docs' });
    await ok(await fetch(`${fm.url}/api/public/dl/${s.hash}/a.txt`));
    const [hit] = await entries('action=share-hit');
    expect(hit).toMatchObject({ actor: null, share: s.hash, path: '/a.txt', detail: 'download', bytes: 5, status: 200, address: '127.0.0.1' });
    expect((await fetch(`${fm.url}/api/public/share/${s.hash}/nope`)).status).toBe(404);
    expect((await entries('action=share-hit'))[0]).toMatchObject({ share: s.hash, path: '/nope', status: 404 });
    await ok(await alice.client.fetch(`/api/share/${s.hash}`, { method: 'DELETE' }));
    expect((await entries('action=share-delete'))[0]).toMatchObject({ actor: 'alice', share: s.hash });
  });

  it('LEAK: records which user and settings fields changed, never their values', async () => {
    const secret = 'a-brand-new-password-42';
    await ok(
      await admin.fetch(`/api/users/${bob.id}`, {
        method: 'PUT',
        json: { what: 'user', which: ['password'], current_password: fm.adminPassword, data: { id: bob.id, password: secret } },
      }),
    );
    bob.client = new Client(fm.url);
    await bob.client.login('bob', secret);
    // The page sends whole cards: only what differs is named.
    await ok(await admin.fetch('/api/settings', { method: 'PUT', json: { hideLoginButton: true, createUserDir: false, auditRetention: 30 * 86400 } }));
    const [settings, user] = await entries('limit=2&user=admin');
    expect(settings).toMatchObject({ action: 'settings-change', detail: 'changed hideLoginButton, auditRetention' });
    const refused = await admin.fetch('/api/settings', { method: 'PUT', json: { minimumPasswordLength: 0 } });
    expect(refused.status).toBe(400);
    expect((await entries('limit=1&user=admin'))[0]).toMatchObject({ action: 'settings-change', detail: 'asked to change minimumPasswordLength', status: 400 });
    expect(user).toMatchObject({ action: 'user-change', detail: 'user bob: changed password' });
    const all = await (await admin.fetch('/api/audit?limit=10000&format=csv')).text();
    expect(all).not.toContain(secret);
    expect(all).not.toContain(fm.adminPassword);
    expect(all).not.toContain(admin.token);
    expect(await admin.json('/api/audit/status')).toEqual({ lost: 0, retentionDays: 30 });
    for (const bad of [0, -1, 1.5, '90d']) {
      const res = await admin.fetch('/api/settings', { method: 'PUT', json: { auditRetention: bad } });
      expect(res.status, String(bad)).toBe(400);
      expect(await res.text()).toContain('auditRetention');
    }
    expect((await admin.json<AuditStatus>('/api/audit/status')).retentionDays).toBe(30);
  });
});

describe('reading the log', () => {
  it('AUTHZ: a user reads only their own entries; naming another user is 403', async () => {
    const own = await entries('limit=10000', bob.client);
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own.map((e) => e.actor))).toEqual(new Set(['bob']));
    expect((await bob.client.fetch('/api/audit?user=alice')).status).toBe(403);
    expect((await fetch(`${fm.url}/api/audit`)).status).toBe(401);
  });

  it('filters by path prefix (path or destination, whole names only), time range, and pages with X-Total-Count', async () => {
    const under = await entries('path=/docs/sub&limit=10000');
    expect(under.length).toBeGreaterThan(0);
    for (const e of under) expect([e.path, e.dest].some((p) => p === '/docs/sub' || p?.startsWith('/docs/sub/'))).toBe(true);
    expect(await entries('path=/docs/su')).toEqual([]);
    expect(await entries(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await entries('since=1h&limit=10000')).length).toBe((await entries('limit=10000')).length);
    expect(await entries(`until=${encodeURIComponent('2001-01-01T00:00:00Z')}`)).toEqual([]);
    const res = await admin.fetch('/api/audit?limit=2&offset=1');
    const total = Number(res.headers.get('X-Total-Count'));
    const page = (await res.json()) as AuditEntry[];
    const all = await entries('limit=10000');
    expect(total).toBe(all.length);
    expect(page).toEqual(all.slice(1, 3));
  });

  it('refuses bad filters with 400 and the field', async () => {
    for (const [query, field] of [
      ['action=explode', 'action'],
      ['since=yesterday', 'since'],
      ['limit=0', 'limit'],
      ['limit=100001', 'limit'],
      ['format=xml', 'format'],
    ]) {
      const res = await admin.fetch(`/api/audit?${query}`);
      expect(res.status, query).toBe(400);
      expect(await res.text()).toContain(field);
    }
  });

  it('answers CSV (RFC 4180) with names holding commas, quotes, newlines and bytes that are not UTF-8', async () => {
    const odd = 'a,b "c"\nd.txt';
    const bytesName = Buffer.concat([Buffer.from('raw-'), Buffer.from([0xff, 0xfe]), Buffer.from('.bin')]);
    fs.writeFileSync(path.join(fm.root, 'alice', odd), 'x');
    fs.writeFileSync(Buffer.concat([Buffer.from(path.join(fm.root, 'alice')), Buffer.from('/'), bytesName]), 'yy');
    await ok(await alice.client.fetch(`/api/raw/${encodeURIComponent(odd)}`));
    const listing = await alice.client.json<{ items: Array<{ name: string }> }>('/api/resources/');
    const escaped = listing.items.find((i) => i.name.startsWith('raw-'))!.name;
    await ok(await alice.client.fetch(`/api/raw/${encodeURIComponent(escaped)}`));
    const [bin, csvOdd] = await entries('action=download&user=alice&limit=2');
    expect(bin.path).toBe(`/${escaped}`);
    expect(csvOdd.path).toBe(`/${odd}`);
    const res = await admin.fetch('/api/audit?action=download&user=alice&limit=2&format=csv');
    expect(res.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    const csv = await res.text();
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe('time,actor,share,address,action,path,dest,bytes,status,detail,duration');
    expect(lines[1]).toBe(`${bin.time},alice,,127.0.0.1,download,/${escaped},,2,200,,`);
    expect(csv).toContain(`,download,"/a,b ""c""\nd.txt",,1,200,,\r\n`);
  });
});
