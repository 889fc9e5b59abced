/**
 * Personal access tokens over real HTTP: made once and shown once, accepted only as
 * `Authorization: Bearer`, narrowed (read-only, limited to a folder), never exchangeable for more,
 * and ended by deletion, expiry, a password change or the user's deletion.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AccessTokenDto, CreatedAccessToken } from '../../src/api/tokens.ts';
import { jumpClock } from '../helpers/clock.ts';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS, updateUser } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
let root: string;
let alice: { client: Client; id: number; password: string };

const bearer = (token: string, pathname: string, init: RequestInit = {}) =>
  fetch(`${fm.url}${pathname}`, { ...init, headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${token}` } });

async function makeToken(client: Client, body: Record<string, unknown>): Promise<CreatedAccessToken> {
  const res = await client.fetch('/api/tokens', { method: 'POST', json: body });
  if (res.status !== 201) throw new Error(`POST /api/tokens: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedAccessToken;
}

const names = async (res: Response) => ((await res.json()) as { items: { name: string }[] }).items.map((i) => i.name).sort();

beforeAll(async () => {
  root = tempDir('fm-tokens-');
  for (const f of ['alice/docs/a.txt', 'alice/docs/sub/b.txt', 'alice/photos/p.txt', 'alice/top.txt']) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), f);
  }
  fm = await startFm({ root });
  admin = await adminClient(fm);
  alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: { ...PERMS, execute: true } });
});
afterAll(async () => {
  await fm.stop();
  fs.rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('making and listing tokens', () => {
  it('shows the secret once; the list has no secret, and the last use once used', async () => {
    const made = await makeToken(alice.client, { name: 'backup script', expires: '30d' });
    expect(made.token).toMatch(/^fmpat_[A-Za-z0-9_-]{12}_[A-Za-z0-9_-]{43}$/);
    expect(made).toMatchObject({ name: 'backup script', readOnly: false, path: '', userID: alice.id, lastUsed: 0 });
    expect(made.expires - made.created).toBe(30 * 86400);

    expect((await bearer(made.token, '/api/resources/')).status).toBe(200);
    const list = await alice.client.json<AccessTokenDto[]>('/api/tokens');
    const listed = list.find((t) => t.id === made.id)!;
    expect(listed.lastUsed).toBeGreaterThan(0);
    expect(JSON.stringify(list)).not.toContain(made.token.slice(-43)); // the secret (base64url: it may hold '_')
    expect(Object.keys(listed).sort()).toEqual(['created', 'expires', 'id', 'lastUsed', 'name', 'path', 'readOnly', 'userID']);
    // Each user sees their own.
    expect((await admin.json<AccessTokenDto[]>('/api/tokens')).some((t) => t.id === made.id)).toBe(false);
  });

  it('refuses bad input with 400 naming the field, and folders it cannot give', async () => {
    const post = (json: unknown) => alice.client.fetch('/api/tokens', { method: 'POST', json });
    const cases: Array<[unknown, number, RegExp]> = [
      [{ name: '' }, 400, /name/],
      [{ name: 'x'.repeat(101) }, 400, /name/],
      [{ name: 'a\u0007b' }, 400, /control/],
      [{ name: 'ok', expires: 'soon' }, 400, /expires/],
      [{ name: 'ok', expires: '400d' }, 400, /366 days/],
      [{ name: 'ok', expires: -5 }, 400, /expires/],
      [{ name: 'ok', readOnly: 'yes' }, 400, /readOnly/],
      [{ name: 'ok', path: '/top.txt' }, 400, /not a folder/],
      [{ name: 'ok', path: '/missing' }, 400, /path: \/missing does not exist/],
    ];
    for (const [body, status, text] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(await res.text(), JSON.stringify(body)).toMatch(text);
    }
    // A folder outside the scope is refused as the files API refuses it.
    expect((await post({ name: 'ok', path: '/../../' })).status).toBe(403);
    expect((await makeToken(alice.client, { name: 'whole scope', path: '/' })).path).toBe('');
  });
});

describe('where a token is accepted', () => {
  let token: string;
  beforeAll(async () => {
    token = (await makeToken(alice.client, { name: 'where' })).token;
  });

  it('only as Authorization: Bearer, never in X-Auth, a cookie or the URL', async () => {
    expect((await bearer(token, '/api/resources/')).status).toBe(200);
    expect((await fetch(`${fm.url}/api/resources/`, { headers: { 'X-Auth': token } })).status).toBe(401);
    expect((await fetch(`${fm.url}/api/resources/`, { headers: { Cookie: `auth=${token}` } })).status).toBe(401);
    expect((await fetch(`${fm.url}/api/resources/?auth=${token}`)).status).toBe(401);
    expect((await fetch(`${fm.url}/api/raw/top.txt?auth=${token}`)).status).toBe(401);
  });

  it('refuses wrong, malformed and altered tokens with 401', async () => {
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [altered, 'fmpat_', 'fmpat_short_secret', `${token}x`, token.replace('fmpat_', 'fmpat_x')]) {
      expect((await bearer(bad, '/api/resources/')).status, bad).toBe(401);
    }
  });

  it('cannot manage tokens or become a session', async () => {
    expect((await bearer(token, '/api/tokens')).status).toBe(403);
    expect((await bearer(token, '/api/tokens', { method: 'POST', body: JSON.stringify({ name: 'more' }) })).status).toBe(403);
    expect((await bearer(token, '/api/renew', { method: 'POST' })).status).toBe(403);
  });
});

describe('a read-only token', () => {
  let token: string;
  beforeAll(async () => {
    token = (await makeToken(alice.client, { name: 'reader', readOnly: true })).token;
  });

  it('reads: listings, downloads, search', async () => {
    expect(await names(await bearer(token, '/api/resources/docs'))).toEqual(['a.txt', 'sub']);
    expect(await (await bearer(token, '/api/raw/docs/a.txt')).text()).toBe('alice/docs/a.txt');
    expect((await bearer(token, '/api/search/?query=b.txt')).status).toBe(200);
  });

  it('changes nothing by any route, and the files stay as they were', async () => {
    const attempts: Array<[string, string, string?]> = [
      ['POST', '/api/resources/new.txt', 'x'],
      ['PUT', '/api/resources/top.txt', 'overwritten'],
      ['DELETE', '/api/resources/top.txt'],
      ['PATCH', '/api/resources/top.txt?action=rename&destination=%2Fmoved.txt'],
      ['POST', '/api/share/top.txt', '{}'],
      ['POST', '/api/tus/up.txt?override=false'],
      ['PUT', '/api/users/0', '{}'],
      ['POST', '/api/logout'],
    ];
    for (const [method, pathname, body] of attempts) {
      const res = await bearer(token, pathname, { method, body });
      expect(res.status, `${method} ${pathname}`).toBe(403);
    }
    expect(fs.readFileSync(path.join(root, 'alice/top.txt'), 'utf8')).toBe('alice/top.txt');
    expect(fs.existsSync(path.join(root, 'alice/new.txt'))).toBe(false);
  });
});

describe('a token limited to a folder', () => {
  let token: string;
  beforeAll(async () => {
    token = (await makeToken(alice.client, { name: 'docs only', path: '/docs' })).token;
  });

  it('sees the folder as its whole scope', async () => {
    expect(await names(await bearer(token, '/api/resources/'))).toEqual(['a.txt', 'sub']);
    expect(await (await bearer(token, '/api/raw/sub/b.txt')).text()).toBe('alice/docs/sub/b.txt');
  });

  it('never reaches past it: parent paths, encoded dots, search, shares', async () => {
    for (const p of ['/api/raw/../top.txt', '/api/raw/%2e%2e/top.txt', '/api/raw/..%2fphotos%2fp.txt', '/api/resources/../photos']) {
      const res = await bearer(token, p);
      const text = await res.text();
      expect(text, p).not.toContain('alice/top.txt');
      expect(text, p).not.toContain('p.txt');
    }
    const search = await (await bearer(token, '/api/search/?query=.txt')).text();
    expect(search).toContain('a.txt');
    expect(search).not.toContain('top.txt');
    expect(search).not.toContain('p.txt');
    expect((await bearer(token, '/api/shares')).status).toBe(403);
  });

  it('writes inside the folder when it is a full token', async () => {
    const res = await bearer(token, '/api/resources/made-by-token.txt', { method: 'POST', body: 'hello' });
    expect(res.status).toBe(200);
    expect(fs.readFileSync(path.join(root, 'alice/docs/made-by-token.txt'), 'utf8')).toBe('hello');
  });

  it('stops working when its folder is gone', async () => {
    const t = (await makeToken(alice.client, { name: 'photos only', path: '/photos' })).token;
    fs.rmSync(path.join(root, 'alice/photos'), { recursive: true });
    expect((await bearer(t, '/api/resources/')).status).toBe(404);
  });
});

describe('the end of a token', () => {
  it('ends at once when deleted; another user cannot delete it', async () => {
    const made = await makeToken(alice.client, { name: 'short-lived' });
    expect((await admin.fetch(`/api/tokens/${made.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await bearer(made.token, '/api/resources/')).status).toBe(200);
    expect((await alice.client.fetch(`/api/tokens/${made.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await bearer(made.token, '/api/resources/')).status).toBe(401);
    expect((await alice.client.fetch(`/api/tokens/${made.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('ends when it expires', async () => {
    const made = await makeToken(alice.client, { name: 'an hour', expires: '1h' });
    expect((await bearer(made.token, '/api/resources/')).status).toBe(200);
    jumpClock(3601_000);
    expect((await bearer(made.token, '/api/resources/')).status).toBe(401);
    expect((await alice.client.json<AccessTokenDto[]>('/api/tokens')).some((t) => t.id === made.id)).toBe(false);
  });

  it('ends when the password changes, and when the user is deleted', async () => {
    const bob = await createUser(admin, fm, 'bob', { perm: PERMS });
    const made = await makeToken(bob.client, { name: 'bob script' });
    expect((await bearer(made.token, '/api/resources/')).status).toBe(200);
    await updateUser(admin, fm, bob.id, { password: 'a-new-long-password-2' });
    expect((await bearer(made.token, '/api/resources/')).status).toBe(401);

    await bob.client.login('bob', 'a-new-long-password-2');
    const second = await makeToken(bob.client, { name: 'after the change' });
    expect((await bearer(second.token, '/api/resources/')).status).toBe(200);
    expect((await admin.fetch(`/api/users/${bob.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(200);
    expect((await bearer(second.token, '/api/resources/')).status).toBe(401);
  });

  it("follows the user's permissions as they change", async () => {
    const made = await makeToken(alice.client, { name: 'perm follower' });
    await updateUser(admin, fm, alice.id, { perm: { ...PERMS, create: false } });
    try {
      expect((await bearer(made.token, '/api/resources/denied.txt', { method: 'POST', body: 'x' })).status).toBe(403);
    } finally {
      await updateUser(admin, fm, alice.id, { perm: { ...PERMS, execute: true } });
    }
  });
});

describe('an admin token', () => {
  it('administers when full, and does not when read-only or limited to a folder', async () => {
    const full = await makeToken(admin, { name: 'admin full' });
    expect((await bearer(full.token, '/api/users')).status).toBe(200);
    const readOnly = await makeToken(admin, { name: 'admin reader', readOnly: true });
    expect((await bearer(readOnly.token, '/api/users')).status).toBe(403);
    const limited = await makeToken(admin, { name: 'admin limited', path: '/alice' });
    expect((await bearer(limited.token, '/api/users')).status).toBe(403);
    expect((await bearer(limited.token, '/api/settings')).status).toBe(403);
  });
});

describe('a token as the WebDAV password', () => {
  const dav = (user: string, token: string, method: string, pathname: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${fm.url}/dav${pathname}`, {
      method,
      body: init.body,
      headers: { Authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`, Depth: '1', ...init.headers },
    });

  it('signs in with the user name, narrowed as on the API', async () => {
    const reader = (await makeToken(alice.client, { name: 'dav reader', readOnly: true, path: '/docs' })).token;
    const listing = await dav('alice', reader, 'PROPFIND', '/');
    expect(listing.status).toBe(207);
    const xml = await listing.text();
    expect(xml).toContain('a.txt');
    expect(xml).not.toContain('top.txt');
    expect((await dav('alice', reader, 'GET', '/a.txt')).status).toBe(200);
    expect((await dav('alice', reader, 'PUT', '/new.txt', { body: 'x' })).status).toBe(403);
    expect((await dav('alice', reader, 'MKCOL', '/made')).status).toBe(403);
    expect(fs.existsSync(path.join(root, 'alice/docs/new.txt'))).toBe(false);

    const writer = (await makeToken(alice.client, { name: 'dav writer' })).token;
    expect((await dav('alice', writer, 'PUT', '/via-dav.txt', { body: 'dav' })).status).toBe(201);
    expect(fs.readFileSync(path.join(root, 'alice/via-dav.txt'), 'utf8')).toBe('dav');
  });

  it("refuses another user's name, a wrong token and a deleted one with a Basic challenge", async () => {
    const made = await makeToken(alice.client, { name: 'dav doomed' });
    const refused = async (res: Response) => {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="fm"/);
    };
    await refused(await dav('admin', made.token, 'PROPFIND', '/'));
    await refused(await dav('alice', `${made.token.slice(0, -2)}xx`, 'PROPFIND', '/'));
    await alice.client.fetch(`/api/tokens/${made.id}`, { method: 'DELETE' });
    await refused(await dav('alice', made.token, 'PROPFIND', '/'));
  });
});
