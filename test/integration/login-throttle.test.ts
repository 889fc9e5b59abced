/**
 * AUTH/DOS: failed logins are throttled per (username, client address) and per address, never
 * per username alone, so nobody can lock a user out from elsewhere. Behind a trusted proxy the
 * client address comes from X-Forwarded-For / Forwarded; from any other peer those headers are
 * ignored. A share's password lock never refuses visitors who hold a valid share token. Sign-ups
 * per address are limited by `--signup-limit`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { spawnFm } from '../helpers/spawn.ts';
import { loginFrom, patchSettings, rawRequest, seenByServer } from '../helpers/http-raw.ts';
import { PERMS, publicInfo, share } from './share-helpers.ts';

const PROXY = '127.0.0.9';

let fm: FmServer;

beforeAll(async () => {
  fm = await startFm({ args: ['--trusted-proxies', PROXY] });
  const admin = await adminClient(fm);
  await createUser(admin, fm, 'target', {}, 'target-password-123');
  await createUser(admin, fm, 'office', {}, 'office-password-123');
});
afterAll(async () => {
  await fm.stop();
});

/** A login through the trusted proxy on behalf of `client`. */
const viaProxy = (username: string, password: string, headers: Record<string, string>) =>
  rawRequest(fm.url, {
    method: 'POST',
    path: '/api/login',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ username, password }),
    localAddress: PROXY,
  });

describe('AUTH lockout is not a denial of service', () => {
  it('failures from many addresses never lock the user out from another address', async () => {
    for (let i = 0; i < 12; i++) {
      const res = await loginFrom(fm.url, 'target', `wrong-${i}`, `127.0.1.${i + 1}`);
      expect(res.status, `attempt ${i + 1}`).toBe(403);
    }
    expect((await loginFrom(fm.url, 'target', 'target-password-123', '127.0.1.200')).status).toBe(200);
  });

  it('10 failures lock that username for that address only', async () => {
    for (let i = 0; i < 10; i++) expect((await loginFrom(fm.url, 'admin', `guess-${i}`, '127.0.2.1')).status).toBe(403);
    const locked = await loginFrom(fm.url, 'admin', fm.adminPassword, '127.0.2.1');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await loginFrom(fm.url, 'admin', fm.adminPassword, '127.0.2.2')).status).toBe(200);
  });
});

describe('AUTH client addresses behind a trusted proxy', () => {
  it('clients behind the proxy are told apart by X-Forwarded-For: one locked client does not lock the others', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await viaProxy('office', `guess-${i}`, { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(403);
    }
    expect((await viaProxy('office', 'office-password-123', { 'X-Forwarded-For': '203.0.113.1' })).status).toBe(429);
    expect((await viaProxy('office', 'office-password-123', { 'X-Forwarded-For': '203.0.113.2' })).status).toBe(200);
    expect((await viaProxy('office', 'office-password-123', { Forwarded: 'for=198.51.100.7;proto=https' })).status).toBe(200);
  });

  it('takes the last address the proxy added, not one the client wrote in front of it', async () => {
    // The locked client forges an entry; the proxy appends the real address after it.
    const res = await viaProxy('office', 'office-password-123', { 'X-Forwarded-For': '203.0.113.99, 203.0.113.1' });
    expect(res.status).toBe(429);
  });

  it('the request log shows the client address, not the proxy', async () => {
    await viaProxy('nobody', 'x', { 'X-Forwarded-For': '192.0.2.77' });
    await expect.poll(() => fm.output()).toMatch(/ 192\.0\.2\.77 POST \/api\/login 403 /);
  });

  it('ignores X-Forwarded-For and Forwarded from a peer that is not a trusted proxy', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await rawRequest(fm.url, {
        method: 'POST',
        path: '/api/login',
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `198.51.100.${i}`, Forwarded: `for=198.51.100.${i}` },
        body: JSON.stringify({ username: `spray-${i}`, password: 'spray-password-1' }),
        localAddress: '127.0.3.1',
      });
      expect(res.status).toBe(403);
    }
    // The address itself (127.0.3.1) is locked, whatever the headers claim.
    const res = await rawRequest(fm.url, {
      method: 'POST',
      path: '/api/login',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.200' },
      body: JSON.stringify({ username: 'target', password: 'target-password-123' }),
      localAddress: '127.0.3.1',
    });
    expect(res.status).toBe(429);
  });
});

describe('SHARE a password lock never refuses visitors holding a valid token', () => {
  it('the token keeps working while the link is locked for password guesses', async () => {
    const admin = await adminClient(fm);
    fs.mkdirSync(path.join(fm.root, 'alice'), { recursive: true });
    fs.writeFileSync(path.join(fm.root, 'alice/a.txt'), 'alpha');
    const alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
    const link = await share(alice.client, '/a.txt', { password: 'right password' });
    const entered = await publicInfo(fm, link.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent('right password') });
    expect(entered.status).toBe(200);
    const { token } = (await entered.json()) as { token: string };
    for (let i = 0; i < 12; i++) await publicInfo(fm, link.hash, '', { 'X-SHARE-PASSWORD': `wrong-${i}` });
    expect((await publicInfo(fm, link.hash, '', { 'X-SHARE-PASSWORD': 'wrong-again' })).status).toBe(429);
    const withToken = await fetch(`${fm.url}/api/public/share/${link.hash}?token=${encodeURIComponent(token)}`);
    expect(withToken.status).toBe(200);
    const download = await fetch(`${fm.url}/api/public/dl/${link.hash}?token=${encodeURIComponent(token)}`);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('alpha');
  });
});

describe('DOS sign-ups per address: --signup-limit', () => {
  let small: FmServer;
  beforeAll(async () => {
    small = await startFm({ args: ['--signup-limit', '2'] });
    await patchSettings(small.dbFile, (s) => ({ ...s, signup: true, createUserDir: true }));
    // Written beside the server: on PostgreSQL it learns of it by a notification, a moment later.
    await seenByServer(async () => (await (await fetch(`${small.url}/login`)).text()).includes('"Signup":true'), 'sign-ups turned on');
  });
  afterAll(async () => {
    await small.stop();
  });

  const signup = (username: string, localAddress: string) =>
    rawRequest(small.url, {
      method: 'POST',
      path: '/api/signup',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password: 'a-long-signup-password-1' }),
      localAddress,
    });

  it('accepts that many sign-ups per address and hour, then 429 with Retry-After', async () => {
    expect((await signup('first', '127.0.6.1')).status).toBe(200);
    expect((await signup('second', '127.0.6.1')).status).toBe(200);
    const third = await signup('third', '127.0.6.1');
    expect(third.status).toBe(429);
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await signup('third', '127.0.6.2')).status).toBe(200);
  });

  it('refuses a limit that is not a number', async () => {
    await expect(spawnFm({ args: ['--signup-limit', 'many'] })).rejects.toThrow(/signup-limit/);
  });
});
