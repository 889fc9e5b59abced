/**
 * Two-factor login over real HTTP: enrolment confirmed by a code, the login asking for a code
 * after the right password (401 + X-FM-OTP: required), wrong, replayed and expired codes
 * refused, recovery codes used once, wrong codes throttled like passwords, turning it off, and
 * the policy that leads users to enrol.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TotpConfirmation, TotpEnrolment, TwoFactorState } from '../../src/api/totp.ts';
import { jumpClock } from '../helpers/clock.ts';
import { adminClient, Client, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let admin: Client;

const login = (body: Record<string, unknown>, server = fm) => fetch(`${server.url}/api/login`, { method: 'POST', body: JSON.stringify(body) });
const codeAt = (secret: string, ms = Date.now()) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: ms });
const claimOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).user as { twoFactor?: TwoFactorState };

/** Enrols a user through the API; answers the secret and the recovery codes. */
async function enrol(client: Client, id: number): Promise<{ secret: string; recoveryCodes: string[] }> {
  const { secret } = await client.json<TotpEnrolment>(`/api/users/${id}/totp`, { method: 'POST' });
  const { recoveryCodes } = await client.json<TotpConfirmation>(`/api/users/${id}/totp`, { method: 'PUT', json: { code: codeAt(secret) } });
  return { secret, recoveryCodes };
}

/**
 * The code of a time step no test has used yet, the clock moved to it (each accepted code uses
 * its step up; the clock goes back to real time after each test, the steps keep going forward).
 */
let ahead = 0;
function nextCode(secret: string): string {
  ahead += 30_000;
  vi.useRealTimers();
  jumpClock(ahead);
  return codeAt(secret);
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('enrolment', () => {
  it('answers a secret and its otpauth URI, stays pending until a valid code confirms it, then hands out ten recovery codes', async () => {
    const carol = await createUser(admin, fm, 'carol');
    const start = await carol.client.json<TotpEnrolment>(`/api/users/${carol.id}/totp`, { method: 'POST' });
    expect(start.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.uri).toBe(`otpauth://totp/fm:carol?issuer=fm&secret=${start.secret}&algorithm=SHA1&digits=6&period=30`);
    // Pending: the password alone still signs in.
    expect((await login({ username: 'carol', password: carol.password })).status).toBe(200);

    const wrong = await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'PUT', json: { code: '000000' } });
    expect([wrong.status, wrong.headers.get('X-Fm-Error')]).toEqual([400, 'invalid_input']);
    expect((await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'PUT', json: {} })).status).toBe(400);
    expect((await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'PUT', json: { code: 123456 } })).status).toBe(400);

    const ok = await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'PUT', json: { code: codeAt(start.secret) } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('X-Renew-Token')).toBe('true');
    const { recoveryCodes } = (await ok.json()) as TotpConfirmation;
    expect(recoveryCodes).toHaveLength(10);
    for (const c of recoveryCodes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);

    expect((await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'POST' })).status).toBe(409);
    expect((await carol.client.fetch(`/api/users/${carol.id}/totp`, { method: 'PUT', json: { code: codeAt(start.secret) } })).status).toBe(409);
  });

  it('is the user’s own: an admin cannot enrol another user, nor an access token its user', async () => {
    const dave = await createUser(admin, fm, 'dave');
    expect((await admin.fetch(`/api/users/${dave.id}/totp`, { method: 'POST' })).status).toBe(403);
    expect((await dave.client.fetch('/api/users/1/totp', { method: 'POST' })).status).toBe(403);
    const made = await dave.client.json<{ token: string }>('/api/tokens', { method: 'POST', json: { name: 'script' } });
    const viaToken = await fetch(`${fm.url}/api/users/${dave.id}/totp`, { method: 'POST', headers: { Authorization: `Bearer ${made.token}` } });
    expect(viaToken.status).toBe(403);
    expect((await dave.client.fetch(`/api/users/${dave.id}/totp`, { method: 'PUT', json: { code: '123456' } })).status).toBe(409);
  });
});

describe('login with two-factor login on', () => {
  let erin: { id: number; password: string; secret: string; recoveryCodes: string[] };
  beforeAll(async () => {
    const u = await createUser(admin, fm, 'erin');
    erin = { ...u, ...(await enrol(u.client, u.id)) };
  });

  it('asks for a code after the right password only (401 + X-FM-OTP: required), never after a wrong one', async () => {
    const missing = await login({ username: 'erin', password: erin.password });
    expect([missing.status, missing.headers.get('X-FM-OTP'), missing.headers.get('X-Fm-Error')]).toEqual([401, 'required', 'otp_required']);
    const wrongPassword = await login({ username: 'erin', password: 'not-the-password', otp: nextCode(erin.secret) });
    expect([wrongPassword.status, wrongPassword.headers.get('X-FM-OTP')]).toEqual([403, null]);
  });

  it('signs in with the password and the current code; the session says two-factor login is on', async () => {
    const res = await login({ username: 'erin', password: erin.password, otp: nextCode(erin.secret) });
    expect(res.status).toBe(200);
    expect(claimOf(await res.text()).twoFactor).toEqual({ enabled: true, required: false });
  });

  it('refuses a wrong code with 403', async () => {
    const res = await login({ username: 'erin', password: erin.password, otp: '000000' });
    expect([res.status, res.headers.get('X-Fm-Error')]).toEqual([403, 'otp_invalid']);
    expect((await login({ username: 'erin', password: erin.password, otp: 'not a code' })).status).toBe(403);
  });

  it('refuses a code already used, and one of an earlier step (replay)', async () => {
    const code = nextCode(erin.secret);
    expect((await login({ username: 'erin', password: erin.password, otp: code })).status).toBe(200);
    const replay = await login({ username: 'erin', password: erin.password, otp: code });
    expect(replay.status).toBe(403);
    expect(await replay.text()).toMatch(/already used/);
    const earlier = codeAt(erin.secret, Date.now() - 30_000);
    expect((await login({ username: 'erin', password: erin.password, otp: earlier })).status).toBe(403);
  });

  it('refuses an expired code (older than one step)', async () => {
    const code = nextCode(erin.secret);
    jumpClock(90_000);
    expect((await login({ username: 'erin', password: erin.password, otp: code })).status).toBe(403);
  });

  it('accepts each recovery code once', async () => {
    const [first] = erin.recoveryCodes;
    expect((await login({ username: 'erin', password: erin.password, otp: first })).status).toBe(200);
    expect((await login({ username: 'erin', password: erin.password, otp: first })).status).toBe(403);
    expect((await login({ username: 'erin', password: erin.password, otp: erin.recoveryCodes[1].toUpperCase() })).status).toBe(200);
  });

  it('WebDAV: the password alone is refused with a Basic challenge that says to use a token; a token signs in', async () => {
    const basic = (secret: string) => ({ Authorization: `Basic ${Buffer.from(`erin:${secret}`).toString('base64')}`, Depth: '0' });
    const refused = await fetch(`${fm.url}/dav/`, { method: 'PROPFIND', headers: basic(erin.password) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Basic realm="fm"/);
    expect(await refused.text()).toMatch(/access token/);
    const client = new Client(fm.url);
    await loginWithCode(client, 'erin', erin.password, nextCode(erin.secret));
    const made = await client.json<{ token: string }>('/api/tokens', { method: 'POST', json: { name: 'dav' } });
    expect((await fetch(`${fm.url}/dav/`, { method: 'PROPFIND', headers: basic(made.token) })).status).toBe(207);
  });

  it('WebDAV: a password remembered from before the enrolment stops working at once', async () => {
    const fay = await createUser(admin, fm, 'fay');
    const headers = { Authorization: `Basic ${Buffer.from(`fay:${fay.password}`).toString('base64')}`, Depth: '0' };
    expect((await fetch(`${fm.url}/dav/`, { method: 'PROPFIND', headers })).status).toBe(207);
    await enrol(fay.client, fay.id);
    expect((await fetch(`${fm.url}/dav/`, { method: 'PROPFIND', headers })).status).toBe(401);
  });

  it('leaves access tokens alone: a token works without a code', async () => {
    const client = new Client(fm.url);
    await loginWithCode(client, 'erin', erin.password, nextCode(erin.secret));
    const made = await client.json<{ token: string }>('/api/tokens', { method: 'POST', json: { name: 'sync' } });
    expect((await fetch(`${fm.url}/api/resources/`, { headers: { Authorization: `Bearer ${made.token}` } })).status).toBe(200);
  });
});

describe('turning it off', () => {
  it('needs the current password, and then the password alone signs in again', async () => {
    const u = await createUser(admin, fm, 'frank');
    await enrol(u.client, u.id);
    const path = `/api/users/${u.id}/totp`;
    expect((await u.client.fetch(path, { method: 'DELETE' })).status).toBe(400);
    expect((await u.client.fetch(path, { method: 'DELETE', json: { current_password: 'wrong-password-123' } })).status).toBe(400);
    expect((await login({ username: 'frank', password: u.password })).status).toBe(401);
    const off = await u.client.fetch(path, { method: 'DELETE', json: { current_password: u.password } });
    expect(off.status).toBe(204);
    expect((await login({ username: 'frank', password: u.password })).status).toBe(200);
    expect((await u.client.fetch(path, { method: 'DELETE', json: { current_password: u.password } })).status).toBe(404);
  });

  it('can be done by an admin, with the admin’s password, for a locked-out user; not by a user for another', async () => {
    const u = await createUser(admin, fm, 'gina');
    await enrol(u.client, u.id);
    expect((await u.client.fetch('/api/users/1/totp', { method: 'DELETE', json: { current_password: u.password } })).status).toBe(403);
    const path = `/api/users/${u.id}/totp`;
    expect((await admin.fetch(path, { method: 'DELETE', json: { current_password: u.password } })).status).toBe(400);
    expect((await admin.fetch(path, { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(204);
    expect((await login({ username: 'gina', password: u.password })).status).toBe(200);
    expect((await admin.fetch('/api/users/999/totp', { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(404);
  });
});

describe('the policy', () => {
  const setPolicy = (totpRequired: unknown) => admin.fetch('/api/settings', { method: 'PUT', json: { totpRequired } });

  it('lets users without two-factor login sign in and tells the UI to lead them to enrol', async () => {
    const u = await createUser(admin, fm, 'hugo');
    expect((await setPolicy('sometimes')).status).toBe(400);
    expect((await setPolicy('admins')).status).toBe(200);
    expect((await admin.json<{ totpRequired: string }>('/api/settings')).totpRequired).toBe('admins');
    const asUser = await login({ username: 'hugo', password: u.password });
    expect(claimOf(await asUser.text()).twoFactor).toEqual({ enabled: false, required: false });
    const asAdmin = await login({ username: 'admin', password: fm.adminPassword });
    expect(claimOf(await asAdmin.text()).twoFactor).toEqual({ enabled: false, required: true });

    expect((await setPolicy('all')).status).toBe(200);
    const res = await login({ username: 'hugo', password: u.password });
    expect(res.status).toBe(200);
    const token = await res.text();
    expect(claimOf(token).twoFactor).toEqual({ enabled: false, required: true });
    // Once enrolled, the renewed session no longer asks.
    const client = new Client(fm.url);
    client.token = token;
    await enrol(client, u.id);
    const renewed = await client.fetch('/api/renew', { method: 'POST' });
    expect(claimOf(await renewed.text()).twoFactor).toEqual({ enabled: true, required: false });
    expect((await setPolicy('none')).status).toBe(200);
  });
});

describe('where the secret is kept', () => {
  it('sealed in the database under an owner-only key file in the data folder, which the files API never serves', async () => {
    // The data folder inside the served root: the key must stay out of reach like the database.
    const home = tempDir('fm-totp-home-');
    const server = await startFm({ home, root: home, sqlite: true });
    try {
      const owner = await adminClient(server);
      const { secret } = await enrol(owner, 1);
      const keyFile = path.join(path.dirname(server.dbFile), 'secrets.key');
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(fs.statSync(keyFile).size).toBe(32);
      await owner.fetch('/api/renew', { method: 'POST' });
      const stored = Buffer.concat([server.dbFile, `${server.dbFile}-wal`].filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f)));
      expect(stored.includes(secret)).toBe(false);
      expect(stored.includes('totp')).toBe(true);
      const names = ((await owner.json<{ items: { name: string }[] }>('/api/resources/')).items ?? []).map((i) => i.name);
      expect(names).not.toContain('secrets.key');
      expect((await owner.fetch('/api/raw/secrets.key')).status).toBe(404);
    } finally {
      await server.stop();
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('throttling', () => {
  it('counts wrong codes like wrong passwords: the tenth locks the username at this address (429)', async () => {
    const server = await startFm();
    try {
      const u = await createUser(await adminClient(server), server, 'ivan');
      const { secret } = await enrol(u.client, u.id);
      for (let i = 0; i < 10; i++) expect((await login({ username: 'ivan', password: u.password, otp: '000000' }, server)).status).toBe(403);
      const locked = await login({ username: 'ivan', password: u.password, otp: nextCode(secret) }, server);
      expect(locked.status).toBe(429);
    } finally {
      await server.stop();
    }
  });

  it('does not count a login that only lacks its code', async () => {
    const server = await startFm();
    try {
      const u = await createUser(await adminClient(server), server, 'jane');
      const { secret } = await enrol(u.client, u.id);
      for (let i = 0; i < 11; i++) expect((await login({ username: 'jane', password: u.password }, server)).status).toBe(401);
      expect((await login({ username: 'jane', password: u.password, otp: nextCode(secret) }, server)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

async function loginWithCode(client: Client, username: string, password: string, otp: string): Promise<void> {
  const res = await fetch(`${client.base}/api/login`, { method: 'POST', body: JSON.stringify({ username, password, otp }) });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
  client.token = await res.text();
}
