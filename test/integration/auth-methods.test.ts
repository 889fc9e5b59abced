/**
 * AUTH/PROV/EXEC: the other auth methods. noauth (everything acts as user 1); proxy (a
 * header trusted only from --trusted-proxies; new users without admin or execute, with
 * lockPassword); hook (an external program, argv only, credentials in its environment).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, adminClient, createUser, startFm, PROJECT_ROOT, type FmServer } from '../helpers/server.ts';
import { decodeToken, patchSettings, rawRequest, seenByServer, withDb } from '../helpers/http-raw.ts';

const HOOK = path.join(PROJECT_ROOT, 'test', 'fixtures', 'auth-hook.mjs');

describe('AUTH --noauth', () => {
  let fm: FmServer;
  beforeAll(async () => {
    fm = await startFm({ args: ['--noauth'] });
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('acts as user 1 on every request, without a token', async () => {
    const me = await fetch(`${fm.url}/api/users/1`);
    expect(me.status).toBe(200);
    expect((await me.json()).username).toBe('admin');
    expect((await fetch(`${fm.url}/api/settings`)).status).toBe(200);
  });

  it('returns a token for user 1 on login without credentials', async () => {
    const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    expect(decodeToken(await res.text()).user.id).toBe(1);
  });

  it('tells the page there is no login page', async () => {
    const html = await (await fetch(`${fm.url}/`)).text();
    expect(html).toContain('"NoAuth":true');
    expect(html).toContain('"LoginPage":false');
    expect(html).toContain('"AuthMethod":"noauth"');
  });
});

describe('AUTH proxy via --auth-header', () => {
  let fm: FmServer;
  const TRUSTED = '127.0.0.5';
  const get = (p: string, user: string | undefined, from: string, headers: Record<string, string> = {}) =>
    rawRequest(fm.url, { path: p, headers: { ...(user ? { 'X-User': user } : {}), ...headers }, localAddress: from });
  const login = (user: string | undefined, from: string) =>
    rawRequest(fm.url, { method: 'POST', path: '/api/login', body: '{}', headers: user ? { 'X-User': user } : {}, localAddress: from });

  beforeAll(async () => {
    fm = await startFm({ args: ['--auth-header', 'X-User', '--trusted-proxies', `${TRUSTED},10.0.0.0/8`] });
    // Defaults that grant too much: proxy users must still not get admin or execute.
    const s = JSON.parse((await get('/api/settings', 'admin', TRUSTED)).text);
    const res = await rawRequest(fm.url, {
      method: 'PUT',
      path: '/api/settings',
      headers: { 'X-User': 'admin', 'Content-Type': 'application/json' },
      localAddress: TRUSTED,
      body: JSON.stringify({ ...s, defaults: { ...s.defaults, perm: { ...s.defaults.perm, admin: true, execute: true }, commands: ['ls'] } }),
    });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('trusts the header from a trusted proxy address', async () => {
    const res = await get('/api/users/1', 'admin', TRUSTED);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).username).toBe('admin');
    const token = await login('admin', TRUSTED);
    expect(token.status).toBe(200);
    expect(decodeToken(token.text).user.username).toBe('admin');
  });

  it('ignores the header from any other address (GHSA-xqp3)', async () => {
    expect((await get('/api/users/1', 'admin', '127.0.0.1')).status).toBe(401);
    expect((await get('/api/settings', 'admin', '127.0.0.6')).status).toBe(401);
    expect((await login('admin', '127.0.0.1')).status).toBe(403);
    expect(fm.output()).toMatch(/ignored proxy header from untrusted address/);
  });

  it('from an untrusted address a token still works, and the header cannot override its user', async () => {
    const token = (await login('admin', TRUSTED)).text;
    const asAdmin = await get('/api/users/1', 'someone-else', '127.0.0.1', { 'X-Auth': token });
    expect(asAdmin.status).toBe(200);
    expect(JSON.parse(asAdmin.text).username).toBe('admin');
  });

  it('answers 401/403 without the header', async () => {
    expect((await get('/api/users/1', undefined, TRUSTED)).status).toBe(401);
    expect((await login(undefined, TRUSTED)).status).toBe(403);
  });

  it('creates unknown users without admin, execute or commands, with lockPassword (GHSA-7526, PROV)', async () => {
    const res = await login('proxied', TRUSTED);
    expect(res.status).toBe(200);
    const claims = decodeToken(res.text).user;
    expect(claims.perm).toMatchObject({ admin: false, execute: false, create: true });
    expect(claims.commands).toEqual([]);
    expect(claims.lockPassword).toBe(true);
    const me = await get(`/api/users/${claims.id}`, 'proxied', TRUSTED);
    expect(me.status).toBe(200);
    expect((await get('/api/settings', 'proxied', TRUSTED)).status).toBe(403);
  });

  it('creates a new user only once under concurrent first requests', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => login('racer', TRUSTED)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => decodeToken(r.text).user.id)).size).toBe(1);
    const users = await withDb(fm.dbFile, async ({ users }) => users.list());
    expect(users.filter((u) => u.username === 'racer')).toHaveLength(1);
  });

  it('refuses a name that differs from a user only in case, instead of signing in as that user or creating a twin', async () => {
    const res = await login('PROXIED', TRUSTED);
    expect(res.status).toBe(403);
    const users = await withDb(fm.dbFile, async ({ users }) => users.list());
    expect(users.filter((u) => u.username.toLowerCase() === 'proxied')).toHaveLength(1);
  });

  it('answers 400 to a header naming an impossible user', async () => {
    expect((await login('../etc', TRUSTED)).status).toBe(400);
  });

  it('tells the page there is no login page', async () => {
    const res = await get('/', undefined, '127.0.0.1');
    expect(res.text).toContain('"AuthMethod":"proxy"');
    expect(res.text).toContain('"LoginPage":false');
  });
});

describe('AUTH hook (EXEC: argv only, no shell)', () => {
  let fm: FmServer;
  let admin: Client;
  let log: string;
  const login = (username: string, password: string) => fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username, password }) });
  const hookCalls = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { argv: string[]; env: Record<string, string> })
      : [];

  beforeAll(async () => {
    // The hook records its calls in a log outside anything its sandbox mounts: this suite is
    // about argv and the environment, so it runs hooks unsandboxed (hooks.test.ts runs the
    // auth hook in its sandbox).
    fm = await startFm({ args: ['--exec-unsandboxed'] });
    admin = await adminClient(fm);
    await createUser(admin, fm, 'passer', {}, 'passer-local-password');
    log = path.join(fm.home, 'hook.log');
    // The auth method and hook command are CLI-only settings: write them to the database.
    await patchSettings(fm.dbFile, (s) => ({ ...s, authMethod: 'hook', auth: { ...s.auth, command: `${process.execPath} ${HOOK} ${log} '$USERNAME'` } }));
    await seenByServer(async () => (await admin.json<{ authMethod: string }>('/api/settings')).authMethod === 'hook', 'the hook auth method');
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('logs in a user the hook accepts, creating it without admin or execute and with lockPassword', async () => {
    const res = await login('hooked', 'hook-secret');
    expect(res.status).toBe(200);
    const claims = decodeToken(await res.text()).user;
    expect(claims).toMatchObject({ username: 'hooked', locale: 'de', lockPassword: true });
    expect(claims.perm).toMatchObject({ admin: false, execute: false, delete: false });
    const u = await admin.json<{ scope: string }>(`/api/users/${claims.id}`);
    expect(u.scope).toBe('/hooked');
  });

  it('passes credentials in the environment only, and argv verbatim (no $VAR expansion)', () => {
    const call = hookCalls().find((c) => c.env.USERNAME === 'hooked')!;
    expect(call.env.PASSWORD).toBe('hook-secret');
    expect(call.argv).toEqual(['$USERNAME']);
    expect(Object.keys(call.env).sort()).toEqual(expect.arrayContaining(['PASSWORD', 'PATH', 'USERNAME']));
    expect(Object.keys(call.env).filter((k) => !['PASSWORD', 'PATH', 'USERNAME', 'LANG', 'HOME', 'TERM', 'PWD'].includes(k))).toEqual([]);
  });

  it('answers 403 when the hook blocks, crashes or prints no valid action', async () => {
    expect((await login('hooked', 'wrong')).status).toBe(403);
    expect((await login('crasher', 'x')).status).toBe(403);
    expect((await login('nonsense', 'x')).status).toBe(403);
  });

  it('answers 400 when the hook hands out a scope that climbs out of the root, creating no user', async () => {
    expect((await login('climber', 'x')).status).toBe(400);
    const users = await admin.json<Array<{ username: string }>>('/api/users');
    expect(users.some((u) => u.username === 'climber')).toBe(false);
  });

  it('hook.action=pass checks the local password', async () => {
    expect((await login('passer', 'passer-local-password')).status).toBe(200);
    expect((await login('passer', 'not-the-password')).status).toBe(403);
  });

  it('never runs a shell on the username or password (GHSA-m93h)', async () => {
    // Usernames cannot hold a slash, so that marker is relative to the server's folder.
    const relMarker = 'fm-hook-pwned-marker';
    const cwdMarker = path.join(process.cwd(), relMarker);
    const marker = path.join(fm.home, 'pwned');
    const evil = `$(touch ${relMarker});\`touch ${relMarker}\``;
    try {
      const res = await login(evil, 'let-me-in');
      expect(res.status).toBe(200);
      await login(`x; touch ${relMarker}`, `'; touch ${marker}; '$(touch ${marker})`);
      expect(fs.existsSync(marker)).toBe(false);
      expect(fs.existsSync(cwdMarker)).toBe(false);
      const call = hookCalls().find((c) => c.env.USERNAME === evil)!;
      expect(call.argv).toEqual(['$USERNAME']);
    } finally {
      fs.rmSync(cwdMarker, { force: true });
    }
  });

  it('tells the page to show the login page', async () => {
    const html = await (await fetch(`${fm.url}/`)).text();
    expect(html).toContain('"AuthMethod":"hook"');
    expect(html).toContain('"LoginPage":true');
  });
});
