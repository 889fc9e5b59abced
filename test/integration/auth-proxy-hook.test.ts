/**
 * AUTH/PROV: names from a proxy header or an auth hook match users exactly (after Unicode NFC),
 * never ignoring case or spaces; a duplicated proxy header is refused, never joined into one
 * name; a hook login never changes an existing user's flags.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, adminClient, startFm, PROJECT_ROOT, type FmServer } from '../helpers/server.ts';
import { decodeToken, patchSettings, rawRequest, seenByServer, withDb } from '../helpers/http-raw.ts';

const HOOK = path.join(PROJECT_ROOT, 'test', 'fixtures', 'auth-hook.mjs');
const usernames = (fm: FmServer) => withDb(fm.dbFile, async ({ users }) => (await users.list()).map((u) => u.username));

describe('AUTH proxy header names match exactly', () => {
  let fm: FmServer;
  const TRUSTED = '127.0.0.5';
  const get = (p: string, user: string | string[]) => rawRequest(fm.url, { path: p, headers: { 'X-User': user }, localAddress: TRUSTED });
  const login = (user: string | string[]) =>
    rawRequest(fm.url, {
      method: 'POST',
      path: '/api/login',
      body: '{}',
      headers: { 'X-User': user, 'Content-Type': 'application/json' },
      localAddress: TRUSTED,
    });

  beforeAll(async () => {
    fm = await startFm({ args: ['--auth-header', 'X-User', '--trusted-proxies', TRUSTED] });
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('the exact name signs in (control)', async () => {
    expect(JSON.parse((await get('/api/users/1', 'admin')).text).username).toBe('admin');
  });

  it('a name that differs only in case is refused, not signed in as that user nor created', async () => {
    for (const name of ['ADMIN', 'Admin']) {
      const res = await get('/api/users/1', name);
      expect(res.status, name).toBe(403);
      expect(res.text).toMatch(/exactly/);
      expect((await login(name)).status, name).toBe(403);
    }
    expect(await usernames(fm)).toEqual(['admin']);
  });

  it('a duplicated header is refused with 400, never joined into one name', async () => {
    const res = await get('/api/users/1', ['alice', 'admin']);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^400 Bad Request: .*X-User.*more than once/i);
    expect((await login(['admin', 'admin'])).status).toBe(400);
    expect(await usernames(fm)).toEqual(['admin']);
  });
});

describe('AUTH hook names match exactly, and a hook login never changes an existing user', () => {
  let fm: FmServer;
  let admin: Client;
  const login = (username: string, password: string) =>
    fetch(`${fm.url}/api/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const adminRecord = () => withDb(fm.dbFile, async ({ users }) => (await users.get(1))!);

  beforeAll(async () => {
    fm = await startFm();
    admin = await adminClient(fm);
    // The hook is this Node: Node 24 cannot start under the default 1 GiB address-space limit
    // of the sandbox (V8 reserves more), so this instance allows 4 GiB.
    await patchSettings(fm.dbFile, (s) => ({
      ...s,
      authMethod: 'hook',
      execMaxMemory: 4 * 1024 ** 3,
      auth: { ...s.auth, command: `${process.execPath} ${HOOK}` },
    }));
    await seenByServer(async () => (await admin.json<{ authMethod: string }>('/api/settings')).authMethod === 'hook', 'the hook auth method');
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('a name the hook accepts loosely (ADMIN, "admin ") does not sign in as admin', async () => {
    for (const name of ['ADMIN', 'admin ', ' admin', 'Admin']) {
      const res = await login(name, 'hook-admin');
      expect(res.status, JSON.stringify(name)).toBe(403);
    }
    expect(await usernames(fm)).toEqual(['admin']);
  });

  it("signing in as an existing user through the hook leaves the user's flags, scope and permissions alone", async () => {
    const before = await adminRecord();
    expect(before.lockPassword).toBe(false);
    const res = await login('admin', 'hook-admin');
    expect(res.status).toBe(200);
    expect(decodeToken(await res.text()).user.username).toBe('admin');
    const after = await adminRecord();
    expect(after.lockPassword).toBe(false);
    expect(after.scope).toBe(before.scope);
    expect(after.locale).toBe(before.locale);
    expect(after.perm).toEqual(before.perm);
    // And the admin can still change their own password (a locked password would forbid it).
    const me = await admin.json<{ lockPassword: boolean }>('/api/users/1');
    expect(me.lockPassword).toBe(false);
  });

  it('names are compared after Unicode NFC: a decomposed spelling finds the composed user', async () => {
    const composed = 'caf\u00e9';
    const first = await login(composed, 'let-me-in');
    expect(first.status).toBe(200);
    const id = decodeToken(await first.text()).user.id;
    const again = await login('cafe\u0301', 'let-me-in');
    expect(again.status).toBe(200);
    expect(decodeToken(await again.text()).user.id).toBe(id);
    expect((await usernames(fm)).filter((n) => n.normalize('NFC') === composed)).toHaveLength(1);
  });
});
