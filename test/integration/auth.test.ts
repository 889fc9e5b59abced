/**
 * AUTH: login, renewal, logout and token revocation, token transport and forged tokens,
 * against a real fm serve with json auth.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { decodeToken, forgeToken, unsignedToken } from '../helpers/http-raw.ts';

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

/** GET /api/users/{id} with a given X-Auth value: 200 when the token is accepted. */
async function statusWith(token: string, id = 1): Promise<number> {
  const res = await fetch(`${fm.url}/api/users/${id}`, { headers: { 'X-Auth': token } });
  await res.arrayBuffer();
  return res.status;
}

describe('AUTH login', () => {
  it('answers a JWT as text/plain with the user claims on good credentials', async () => {
    const res = await fetch(`${fm.url}/api/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: fm.adminPassword }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const token = await res.text();
    expect(token.split('.')).toHaveLength(3);
    const claims = decodeToken(token);
    expect(claims.user).toMatchObject({ id: 1, username: 'admin', perm: { admin: true } });
    expect(claims.user).not.toHaveProperty('password');
    expect(claims.exp - claims.iat).toBe(2 * 3600);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({ alg: 'HS256' });
  });

  it('accepts a JSON body sent without a JSON content type (filebrowser clients do this)', async () => {
    const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: fm.adminPassword }) });
    expect(res.status).toBe(200);
  });

  it('answers 403 on a wrong password, an unknown user and empty credentials', async () => {
    for (const body of [{ username: 'admin', password: 'wrong-password-123' }, { username: 'nobody-here', password: 'whatever-password' }, {}]) {
      const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/^403 Forbidden/);
    }
    await admin.login('admin', fm.adminPassword); // a success resets the address's failure count
  });

  it('answers 400 on malformed JSON and on non-string fields, never 500', async () => {
    const bad = await fetch(`${fm.url}/api/login`, { method: 'POST', body: '{"username":' });
    expect(bad.status).toBe(400);
    const typed = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: ['admin'], password: 1 }) });
    expect(typed.status).toBe(400);
  });

  it('logs in case-insensitively by username', async () => {
    const c = new Client(fm.url);
    await c.login('ADMIN', fm.adminPassword);
    expect(decodeToken(c.token).user.username).toBe('admin');
  });
});

describe('AUTH renew', () => {
  it('returns a new token and X-Renew-Token: false', async () => {
    const res = await admin.fetch('/api/renew', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-renew-token')).toBe('false');
    const token = await res.text();
    expect(token).not.toBe(admin.token);
    expect(await statusWith(token)).toBe(200);
  });

  it('needs a valid token (401 without)', async () => {
    const res = await fetch(`${fm.url}/api/renew`, { method: 'POST' });
    expect(res.status).toBe(401);
  });

  it('asks for renewal when under half the lifetime remains', async () => {
    const old = await forgeToken(fm.dbFile, 1, { iat: -3000, exp: 600 });
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { 'X-Auth': old } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-renew-token')).toBe('true');
    const fresh = await admin.fetch('/api/users/1');
    expect(fresh.headers.get('x-renew-token')).toBeNull();
  });

  it('asks for renewal after the user changed, and the renewed token carries the change', async () => {
    const bob = await createUser(admin, fm, 'renew-bob');
    const before = await bob.client.fetch(`/api/users/${bob.id}`);
    expect(before.headers.get('x-renew-token')).toBeNull();
    const put = await admin.fetch(`/api/users/${bob.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['locale'], data: { id: bob.id, locale: 'de' } },
    });
    expect(put.status).toBe(200);
    const after = await bob.client.fetch(`/api/users/${bob.id}`);
    expect(after.status).toBe(200);
    expect(after.headers.get('x-renew-token')).toBe('true');
    const renewed = await bob.client.fetch('/api/renew', { method: 'POST' });
    const token = await renewed.text();
    expect(decodeToken(token).user.locale).toBe('de');
    bob.client.token = token;
    expect((await bob.client.fetch(`/api/users/${bob.id}`)).headers.get('x-renew-token')).toBeNull();
  });
});

describe('AUTH revocation', () => {
  it('logout revokes the token it was called with, and only that one', async () => {
    const a = new Client(fm.url);
    await a.login('admin', fm.adminPassword);
    const b = new Client(fm.url);
    await b.login('admin', fm.adminPassword);
    const res = await a.fetch('/api/logout', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await statusWith(a.token)).toBe(401);
    expect((await a.fetch('/api/renew', { method: 'POST' })).status).toBe(401);
    expect(await statusWith(b.token)).toBe(200);
  });

  it("a password change revokes the user's other tokens and keeps the caller's session (renewal answers a new token)", async () => {
    const carol = await createUser(admin, fm, 'carol');
    const other = new Client(fm.url);
    await other.login('carol', carol.password);
    const newPassword = 'carol-new-password-42';
    const res = await carol.client.fetch(`/api/users/${carol.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['password'], current_password: carol.password, data: { id: carol.id, password: newPassword } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-renew-token')).toBe('true');
    expect(await statusWith(carol.client.token, carol.id)).toBe(200);
    expect(await statusWith(other.token, carol.id)).toBe(401);
    const fresh = await (await carol.client.fetch('/api/renew', { method: 'POST' })).text();
    expect(await statusWith(fresh, carol.id)).toBe(200);
    // The old password no longer works, the new one does.
    expect((await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'carol', password: carol.password }) })).status).toBe(403);
    await new Client(fm.url).login('carol', newPassword);
  });

  it('an admin changing a user password revokes that user, not the admin', async () => {
    const dave = await createUser(admin, fm, 'dave');
    const res = await admin.fetch(`/api/users/${dave.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['password'], current_password: fm.adminPassword, data: { id: dave.id, password: 'dave-reset-password-1' } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-auth-token')).toBeNull();
    expect(await statusWith(dave.client.token, dave.id)).toBe(401);
    expect(await statusWith(admin.token)).toBe(200);
  });

  it('deleting a user revokes their tokens', async () => {
    const eve = await createUser(admin, fm, 'eve');
    expect(await statusWith(eve.client.token, eve.id)).toBe(200);
    const del = await admin.fetch(`/api/users/${eve.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } });
    expect(del.status).toBe(200);
    expect(await statusWith(eve.client.token, eve.id)).toBe(401);
    expect((await eve.client.fetch('/api/renew', { method: 'POST' })).status).toBe(401);
  });

  it('a new user with the name of a deleted one does not inherit its tokens', async () => {
    const first = await createUser(admin, fm, 'reborn');
    await admin.fetch(`/api/users/${first.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } });
    const second = await createUser(admin, fm, 'reborn');
    expect(second.id).not.toBe(first.id);
    expect(await statusWith(first.client.token, second.id)).toBe(401);
  });
});

describe('AUTH forged and malformed tokens get 401', () => {
  it('accepts a token forged with the real key (control for the cases below)', async () => {
    expect(await statusWith(await forgeToken(fm.dbFile, 1))).toBe(200);
  });

  it('rejects a wrong signature', async () => {
    expect(await statusWith(await forgeToken(fm.dbFile, 1, { key: crypto.randomBytes(64) }))).toBe(401);
    const good = await forgeToken(fm.dbFile, 1);
    const [h, p] = good.split('.');
    const flipped = `${h}.${p}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    expect(await statusWith(flipped)).toBe(401);
  });

  it('rejects alg none', async () => {
    const claims = decodeToken(await forgeToken(fm.dbFile, 1));
    expect(await statusWith(unsignedToken(claims))).toBe(401);
    expect(await statusWith(`${unsignedToken(claims).slice(0, -1)}.`)).toBe(401);
  });

  it('rejects RS256, even one signed with a key pair the attacker made', async () => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await forgeToken(fm.dbFile, 1, { key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, algorithm: 'RS256' });
    expect(await statusWith(token)).toBe(401);
  });

  it('rejects HS512 with the right key (HS256 only)', async () => {
    const token = await forgeToken(fm.dbFile, 1, { algorithm: 'HS512' });
    expect(await statusWith(token)).toBe(401);
  });

  it('rejects an expired token and one without exp or iat', async () => {
    const expired = await forgeToken(fm.dbFile, 1, { iat: -7200, exp: -60 });
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { 'X-Auth': expired } });
    expect(res.status).toBe(401);
    expect(await res.text()).toMatch(/expired/);
    expect(await statusWith(await forgeToken(fm.dbFile, 1, { omitExp: true }))).toBe(401);
    expect(await statusWith(await forgeToken(fm.dbFile, 1, { omitIat: true }))).toBe(401);
  });

  it('rejects a token for a user id that does not exist and one with a stale session epoch', async () => {
    const good = decodeToken(await forgeToken(fm.dbFile, 1));
    expect(await statusWith(await forgeToken(fm.dbFile, 1, { extra: { user: { ...good.user, id: 999 } } }))).toBe(401);
    expect(await statusWith(await forgeToken(fm.dbFile, 1, { extra: { sev: 7 } }))).toBe(401);
  });

  it('rejects garbage, two parts, four parts and an empty header', async () => {
    const good = await forgeToken(fm.dbFile, 1);
    const [h, p, s] = good.split('.');
    for (const bad of ['garbage', `${h}.${p}`, `${h}.${p}.${s}.${s}`, '..', 'a.b.c', '%%%.^^^.***', ' ']) {
      expect(await statusWith(bad), bad).toBe(401);
    }
    const none = await fetch(`${fm.url}/api/users/1`);
    expect(none.status).toBe(401);
  });

  it('answers 401 as short text/plain, never a stack trace', async () => {
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { 'X-Auth': 'a.b.c' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^401 Unauthorized/);
    expect(text).not.toMatch(/at .*\.(js|ts):\d+/);
  });
});

describe('AUTH token transport', () => {
  it('accepts the auth cookie on GET', async () => {
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { Cookie: `auth=${admin.token}` } });
    expect(res.status).toBe(200);
  });

  it('ignores the auth cookie on other methods (CSRF)', async () => {
    const renew = await fetch(`${fm.url}/api/renew`, { method: 'POST', headers: { Cookie: `auth=${admin.token}` } });
    expect(renew.status).toBe(401);
    const put = await fetch(`${fm.url}/api/settings`, { method: 'PUT', headers: { Cookie: `auth=${admin.token}` }, body: JSON.stringify({ signup: true }) });
    expect(put.status).toBe(401);
    const del = await fetch(`${fm.url}/api/users/1`, { method: 'DELETE', headers: { Cookie: `auth=${admin.token}` } });
    expect(del.status).toBe(401);
  });

  it('uses X-Auth only with exactly three parts, else falls back to the cookie on GET', async () => {
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { 'X-Auth': 'not-a-token', Cookie: `auth=${admin.token}` } });
    expect(res.status).toBe(200);
    const post = await fetch(`${fm.url}/api/renew`, { method: 'POST', headers: { 'X-Auth': 'not.a-token', Cookie: `auth=${admin.token}` } });
    expect(post.status).toBe(401);
  });

  it('never accepts a token in the query string', async () => {
    const res = await fetch(`${fm.url}/api/users/1?auth=${admin.token}`);
    expect(res.status).toBe(401);
  });

  it('a logged-out cookie token is refused too', async () => {
    const c = new Client(fm.url);
    await c.login('admin', fm.adminPassword);
    await c.fetch('/api/logout', { method: 'POST' });
    const res = await fetch(`${fm.url}/api/users/1`, { headers: { Cookie: `auth=${c.token}` } });
    expect(res.status).toBe(401);
  });
});
