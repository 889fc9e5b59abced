/**
 * Single sign-on against a real OpenID provider on 127.0.0.1 (oidc-provider), over real HTTP:
 * the settings and their CLI flags, the login through the provider's login page, first-login
 * provisioning with the new-user defaults, admin by group (granted and taken on later logins),
 * and every refusal — state, nonce, replayed code, expired or foreign ID tokens, a bad
 * signature, a missing username claim, a provider that is down — which lands on the login page
 * with a reason, never a 500, while password login keeps working.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UserDto } from '../../src/api/user.ts';
import { runFm } from '../helpers/cli.ts';
import { startProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { adminClient, Client, startFm, type FmServer } from '../helpers/server.ts';

let fm: FmServer;
let admin: Client;
let op: TestProvider;

/** A browser's cookie store reduced to what these tests need (one host: fm and the provider are both on 127.0.0.1). */
class CookieJar {
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair.indexOf('=');
      const [name, value] = [pair.slice(0, i).trim(), pair.slice(i + 1).trim()];
      const gone = !value || attrs.some((a) => /expires=.*1970/i.test(a) || /max-age=0\b/i.test(a.trim()));
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** Follows redirects like a browser until fm's login page (answers its URL) or a page (answers the response). */
async function follow(start: string, jar: CookieJar, init: RequestInit = {}): Promise<URL | Response> {
  let url = new URL(start);
  let req = init;
  for (let hops = 0; hops < 20; hops++) {
    const res = await fetch(url, { ...req, redirect: 'manual', headers: { ...(req.headers as Record<string, string>), cookie: jar.header() } });
    jar.store(res);
    expect(res.status, `${url}`).toBeLessThan(500);
    if (res.status < 300 || res.status >= 400) return res;
    await res.body?.cancel();
    url = new URL(res.headers.get('location')!, url);
    if (url.href.startsWith(`${fm.url}/login`)) return url;
    req = {};
  }
  throw new Error('too many redirects');
}

/** Starts at fm's login route, signs in on the provider's page as `login`; answers where fm sent the browser. */
async function ssoLogin(login: string, jar = new CookieJar()): Promise<URL> {
  lastJar = jar;
  const page = await follow(`${fm.url}/api/auth/oidc/login`, jar);
  if (page instanceof URL) return page;
  expect(page.url).toContain('/interaction/');
  const body = new URLSearchParams({ prompt: 'login', login, password: 'any' });
  const done = await follow(page.url, jar, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  if (!(done instanceof URL)) throw new Error(`stayed at ${done.url}: ${await done.text()}`);
  return done;
}

/** The reason in the query, or the session the login page takes with the cookie fm left. */
async function outcome(url: URL, jar = lastJar): Promise<{ token?: string; error?: string }> {
  const error = url.searchParams.get('oidc_error') ?? undefined;
  if (error) return { error };
  expect(url.searchParams.get('oidc_login')).toBe('1');
  expect(url.href).not.toMatch(/eyJ/); // no token in any URL
  const res = await fetch(`${fm.url}/api/auth/oidc/session`, { method: 'POST', headers: { cookie: jar.header() } });
  jar.store(res);
  expect(res.status).toBe(200);
  return { token: await res.text() };
}
let lastJar = new CookieJar();

const me = async (token: string) => {
  const c = new Client(fm.url);
  c.token = token;
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as { user: { id: number } };
  return c.json<UserDto>(`/api/users/${claims.user.id}`);
};

const configSet = (...args: string[]) => runFm(['config', 'set', '-d', fm.dbFile, ...args]);

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  op = await startProvider(`${fm.url}/api/auth/oidc/callback`);
  const set = await configSet(
    '--oidc-issuer',
    op.issuer,
    '--oidc-client-id',
    op.clientId,
    '--oidc-client-secret',
    op.clientSecret,
    '--oidc-groups-claim',
    'groups',
    '--oidc-admin-group',
    'fm-admins',
    '--oidc-name',
    'Test SSO',
    '--create-user-dir',
  );
  expect(set.stderr).toBe('');
  expect(set.code).toBe(0);
});
afterAll(async () => {
  await op?.stop();
  await fm?.stop();
});
beforeEach(() => {
  for (const key of Object.keys(op.tamper) as (keyof TestProvider['tamper'])[]) delete op.tamper[key];
});

describe('settings', () => {
  it('are shown to admins without the client secret, and the login page learns the provider name', async () => {
    const s = await admin.json<{ auth: { oidc: Record<string, unknown> } }>('/api/settings');
    expect(s.auth.oidc).toMatchObject({
      issuer: op.issuer,
      clientId: op.clientId,
      hasClientSecret: true,
      name: 'Test SSO',
      usernameClaim: 'preferred_username',
    });
    expect(JSON.stringify(s)).not.toContain(op.clientSecret);
    const page = await (await fetch(`${fm.url}/login`)).text();
    expect(page).toContain('"OidcName":"Test SSO"');
  });

  it('are changed over the API only with the admin’s current password; an empty secret is kept for the same provider only', async () => {
    type Shown = { auth: { oidc: Record<string, unknown> | null; header: string } };
    const shown = await admin.json<Shown>('/api/settings');
    const oidc = { ...shown.auth.oidc, name: 'Company SSO', clientSecret: '' };
    const put = (body: unknown) => admin.fetch('/api/settings', { method: 'PUT', json: body });
    const noPassword = await put({ auth: { oidc } });
    expect(noPassword.status).toBe(400);
    expect(await noPassword.text()).toContain('current password');
    expect((await put({ auth: { oidc }, current_password: 'wrong' })).status).toBe(400);

    const ok = await put({ auth: { oidc, header: 'X-Evil' }, current_password: fm.adminPassword });
    expect(ok.status).toBe(200);
    let now = await admin.json<Shown>('/api/settings');
    expect(now.auth.oidc).toMatchObject({ name: 'Company SSO', hasClientSecret: true });
    expect(now.auth.header).toBe(shown.auth.header); // the rest of auth stays the CLI's

    const bad = await put({ auth: { oidc: { ...oidc, issuer: 'http://sso.example.com' } }, current_password: fm.adminPassword });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('auth.oidc.issuer: the issuer URL must be https');

    const moved = { ...oidc, issuer: 'https://sso.example.com' };
    expect((await put({ auth: { oidc: moved }, current_password: fm.adminPassword })).status).toBe(200);
    now = await admin.json<Shown>('/api/settings');
    expect(now.auth.oidc).toMatchObject({ issuer: 'https://sso.example.com', hasClientSecret: false });

    const back = { ...oidc, name: 'Test SSO', clientSecret: op.clientSecret };
    expect((await put({ auth: { oidc: back }, current_password: fm.adminPassword })).status).toBe(200);
    expect((await admin.json<Shown>('/api/settings')).auth.oidc).toMatchObject({ issuer: op.issuer, hasClientSecret: true, name: 'Test SSO' });
  });

  it('refuse single sign-on while new users would get the whole root with write rights (PROV)', async () => {
    const other = await startFm();
    try {
      const args = ['config', 'set', '-d', other.dbFile, '--oidc-issuer', op.issuer, '--oidc-client-id', op.clientId];
      const refused = await runFm(args);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('single sign-on would give new users the whole root with write rights');
      expect((await runFm([...args, '--scope', '/shared'])).code).toBe(0);
    } finally {
      await other.stop();
    }
  });

  it('refuse an http issuer that is not on a loopback address, and an admin group without a groups claim', async () => {
    const http = await configSet('--oidc-issuer', 'http://sso.example.com', '--oidc-client-id', 'x');
    expect(http.code).toBe(2);
    expect(http.stderr).toContain('must be https');
    expect((await configSet('--oidc-issuer', 'http://[::1]:9/', '--oidc-client-id', 'x', '--no-oidc')).stderr).toContain('cannot be combined');
    const group = await runFm(['config', 'set', '-d', fm.dbFile, '--oidc-groups-claim', '', '--oidc-admin-group', 'g']);
    expect(group.code).not.toBe(0);
    expect(group.stderr).toContain('--oidc-admin-group needs --oidc-groups-claim');
  });
});

describe('login', () => {
  it('creates the user on first login with the new-user defaults and a home folder, never admin or execute', async () => {
    op.accounts.set('u-erin', { preferred_username: 'erin', groups: ['staff'] });
    const { token, error } = await outcome(await ssoLogin('u-erin'));
    expect(error).toBeUndefined();
    const erin = await me(token!);
    expect(erin.username).toBe('erin');
    expect(erin.perm).toMatchObject({ admin: false, execute: false, create: true });
    expect(erin.lockPassword).toBe(true);
    expect((await admin.json<UserDto>(`/api/users/${erin.id}`)).scope).toBe('/users/erin');
    // The session is taken once.
    expect((await fetch(`${fm.url}/api/auth/oidc/session`, { method: 'POST', headers: { cookie: lastJar.header() } })).status).toBe(401);
    expect(fs.statSync(path.join(fm.root, 'users', 'erin')).isDirectory()).toBe(true);
  });

  it('makes a member of the admin group an admin, and takes admin away when a later login no longer has the group', async () => {
    op.accounts.set('u-fay', { preferred_username: 'fay', groups: ['staff', 'fm-admins'] });
    const first = await me((await outcome(await ssoLogin('u-fay'))).token!);
    expect(first.perm.admin).toBe(true);
    op.accounts.set('u-fay', { preferred_username: 'fay', groups: ['staff'] });
    const later = await me((await outcome(await ssoLogin('u-fay'))).token!);
    expect(later.id).toBe(first.id);
    expect(later.perm).toMatchObject({ admin: false, execute: false });
    op.accounts.set('u-fay', { preferred_username: 'fay', groups: 'fm-admins' });
    expect((await me((await outcome(await ssoLogin('u-fay'))).token!)).perm.admin).toBe(true);
  });

  it('never gives admin or execute from the defaults, even when the defaults have them (PROV)', async () => {
    const { defaults } = await admin.json<{ defaults: { perm: Record<string, boolean> } }>('/api/settings');
    const put = (perm: Record<string, boolean>) => admin.fetch('/api/settings', { method: 'PUT', json: { defaults: { ...defaults, perm } } });
    expect((await put({ ...defaults.perm, admin: true, execute: true })).status).toBe(200);
    try {
      op.accounts.set('u-lou', { preferred_username: 'lou', groups: ['staff'] });
      const lou = await me((await outcome(await ssoLogin('u-lou'))).token!);
      expect(lou.perm).toMatchObject({ admin: false, execute: false });
    } finally {
      expect((await put(defaults.perm)).status).toBe(200);
    }
  });

  it('creates one user and one home when two first logins of the same account race (PROV)', async () => {
    op.accounts.set('u-max', { preferred_username: 'max' });
    const [a, b] = await Promise.all([ssoLogin('u-max', new CookieJar()), ssoLogin('u-max', new CookieJar())]);
    expect(a.searchParams.get('oidc_error')).toBeNull();
    expect(b.searchParams.get('oidc_error')).toBeNull();
    const users = await admin.json<UserDto[]>('/api/users');
    expect(users.filter((u) => u.username === 'max')).toHaveLength(1);
    expect(fs.readdirSync(path.join(fm.root, 'users')).filter((d) => d.toLowerCase() === 'max')).toEqual(['max']);
  });

  it('ends the session at logout like any other (AUTH)', async () => {
    op.accounts.set('u-ned', { preferred_username: 'ned' });
    const { token } = await outcome(await ssoLogin('u-ned'));
    const c = new Client(fm.url);
    c.token = token!;
    expect((await c.fetch('/api/logout', { method: 'POST' })).status).toBe(200);
    expect((await c.fetch('/api/renew', { method: 'POST' })).status).toBe(401);
  });

  it('matches usernames exactly: a name differing only in case is refused', async () => {
    op.accounts.set('u-admin', { preferred_username: 'ADMIN' });
    expect((await outcome(await ssoLogin('u-admin'))).error).toBe('conflict');
  });

  it('refuses an ID token without the username claim', async () => {
    op.accounts.set('u-anon', { name: 'No Name' });
    expect((await outcome(await ssoLogin('u-anon'))).error).toBe('no_username');
  });
});

describe('the session hand-over', () => {
  it('leaves the session in a one-time HttpOnly cookie for the login route only, which a cross-site POST cannot take', async () => {
    op.accounts.set('u-kim', { preferred_username: 'kim' });
    const jar = new CookieJar();
    const page = (await follow(`${fm.url}/api/auth/oidc/login`, jar)) as Response;
    let url = new URL(page.url);
    let init: RequestInit = { method: 'POST', body: new URLSearchParams({ prompt: 'login', login: 'u-kim', password: 'x' }) };
    let res: Response | undefined;
    while (!url.searchParams.has('oidc_login')) {
      res = await fetch(url, { ...init, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() } });
      jar.store(res);
      url = new URL(res.headers.get('location')!, url);
      init = {};
    }
    const cookie = res!.headers.getSetCookie().find((c) => c.startsWith('fm_oidc_session='))!;
    expect(cookie).toMatch(/path=\/api\/auth\/oidc\/;/);
    expect(cookie).toMatch(/httponly/i);
    expect(cookie).toMatch(/samesite=strict/i);
    const crossSite = await fetch(`${fm.url}/api/auth/oidc/session`, { method: 'POST', headers: { cookie: jar.header(), origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect((await outcome(url, jar)).token).toBeTruthy();
  });

  it('brings the browser back to the app path it started from, never to another site', async () => {
    op.accounts.set('u-ola', { preferred_username: 'ola' });
    const page = await follow(`${fm.url}/api/auth/oidc/login?redirect=${encodeURIComponent('/files/docs/')}`, (lastJar = new CookieJar()));
    const body = new URLSearchParams({ prompt: 'login', login: 'u-ola', password: 'x' });
    const back = (await follow((page as Response).url, lastJar, { method: 'POST', body })) as URL;
    expect(back.searchParams.get('redirect')).toBe('/files/docs/');
    for (const evil of ['//evil.example/', '/\\evil.example/', 'https://evil.example/']) {
      const again = (await follow(`${fm.url}/api/auth/oidc/login?redirect=${encodeURIComponent(evil)}`, (lastJar = new CookieJar()))) as Response;
      const done = (await follow(again.url, lastJar, { method: 'POST', body })) as URL;
      expect(done.searchParams.get('oidc_login')).toBe('1');
      expect(done.searchParams.has('redirect')).toBe(false);
    }
  });
});

describe('refusals', () => {
  it('refuses a callback whose state is not the one this browser started with', async () => {
    op.accounts.set('u-gil', { preferred_username: 'gil' });
    const jar = new CookieJar();
    const page = (await follow(`${fm.url}/api/auth/oidc/login`, jar)) as Response;
    const body = new URLSearchParams({ prompt: 'login', login: 'u-gil', password: 'x' });
    // Stop at the callback and change its state.
    let url = new URL(page.url);
    let init: RequestInit = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() } };
    while (!url.pathname.endsWith('/api/auth/oidc/callback')) {
      const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), cookie: jar.header() } });
      jar.store(res);
      url = new URL(res.headers.get('location')!, url);
      init = {};
    }
    url.searchParams.set('state', 'forged');
    expect((await outcome((await follow(url.href, jar)) as URL)).error).toBe('expired');
  });

  it('refuses an ID token whose nonce is not the one fm sent', async () => {
    op.accounts.set('u-hal', { preferred_username: 'hal' });
    op.tamper.nonce = 'another-nonce';
    expect((await outcome(await ssoLogin('u-hal'))).error).toBe('refused');
  });

  it('refuses expired ID tokens, ID tokens for another client, and ones not signed by the provider', async () => {
    op.accounts.set('u-ivy', { preferred_username: 'ivy' });
    op.tamper.idToken = (p) => {
      p.iat = Math.floor(Date.now() / 1000) - 7200;
      p.exp = Math.floor(Date.now() / 1000) - 3600;
    };
    expect((await outcome(await ssoLogin('u-ivy'))).error).toBe('refused');
    op.tamper.idToken = (p) => {
      p.aud = 'another-client';
    };
    expect((await outcome(await ssoLogin('u-ivy'))).error).toBe('refused');
    delete op.tamper.idToken;
    op.tamper.foreignKey = true;
    expect((await outcome(await ssoLogin('u-ivy'))).error).toBe('refused');
    const users = await admin.json<UserDto[]>('/api/users');
    expect(users.map((u) => u.username)).not.toContain('ivy');
  });

  it('refuses a replayed callback: once without the flow cookie, and at the provider when the cookie is sent again', async () => {
    op.accounts.set('u-jo', { preferred_username: 'jo' });
    const jar = new CookieJar();
    const page = (await follow(`${fm.url}/api/auth/oidc/login`, jar)) as Response;
    const flowCookie = jar.cookies.get('fm_oidc')!;
    let url = new URL(page.url);
    let init: RequestInit = { method: 'POST', body: new URLSearchParams({ prompt: 'login', login: 'u-jo', password: 'x' }) };
    while (!url.pathname.endsWith('/api/auth/oidc/callback')) {
      const res = await fetch(url, { ...init, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() } });
      jar.store(res);
      url = new URL(res.headers.get('location')!, url);
      init = {};
    }
    expect((await outcome((await follow(url.href, jar)) as URL, jar)).token).toBeTruthy();
    expect(jar.cookies.has('fm_oidc')).toBe(false);
    expect((await outcome((await follow(url.href, jar)) as URL)).error).toBe('expired');
    jar.cookies.set('fm_oidc', flowCookie);
    expect((await outcome((await follow(url.href, jar)) as URL)).error).toBe('refused');
  });

  it('says the sign-in was cancelled when the provider answers with an error', async () => {
    const jar = new CookieJar();
    const res = await fetch(`${fm.url}/api/auth/oidc/login`, { redirect: 'manual' });
    jar.store(res);
    const state = new URL(res.headers.get('location')!).searchParams.get('state')!;
    const back = await follow(`${fm.url}/api/auth/oidc/callback?error=access_denied&state=${state}&iss=${encodeURIComponent(op.issuer)}`, jar);
    expect((await outcome(back as URL)).error).toBe('denied');
  });

  it('refuses a flow cookie that was altered', async () => {
    const jar = new CookieJar();
    await follow(`${fm.url}/api/auth/oidc/login`, jar);
    const [body, mac] = jar.cookies.get('fm_oidc')!.split('.');
    const flow = JSON.parse(Buffer.from(body, 'base64url').toString());
    flow.state = 'forged';
    jar.cookies.set('fm_oidc', `${Buffer.from(JSON.stringify(flow)).toString('base64url')}.${mac}`);
    expect((await outcome((await follow(`${fm.url}/api/auth/oidc/callback?code=x&state=forged`, jar)) as URL)).error).toBe('expired');
  });

  it('sends the browser back with "unavailable" when the provider is down, and password login still works', async () => {
    const down = await startProvider(`${fm.url}/api/auth/oidc/callback`);
    await down.stop();
    expect((await configSet('--oidc-issuer', down.issuer)).code).toBe(0);
    try {
      expect((await outcome((await follow(`${fm.url}/api/auth/oidc/login`, new CookieJar())) as URL)).error).toBe('unavailable');
      expect(fm.output()).toContain('oidc: login refused (unavailable)');
      const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'admin', password: fm.adminPassword }) });
      expect(res.status).toBe(200);
    } finally {
      expect((await configSet('--oidc-issuer', op.issuer)).code).toBe(0);
    }
  });

  it('sends the browser back with "off" when single sign-on is not configured', async () => {
    expect((await configSet('--no-oidc')).code).toBe(0);
    try {
      expect((await outcome((await follow(`${fm.url}/api/auth/oidc/login`, new CookieJar())) as URL)).error).toBe('off');
      expect((await outcome((await follow(`${fm.url}/api/auth/oidc/callback?code=x&state=y`, new CookieJar())) as URL)).error).toBe('off');
    } finally {
      const back = await configSet('--oidc-issuer', op.issuer, '--oidc-client-id', op.clientId, '--oidc-client-secret', op.clientSecret);
      expect(back.code).toBe(0);
    }
  });
});
