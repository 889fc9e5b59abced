/**
 * PROV: sign-up. Disabled by default (405); when enabled, new users never inherit admin,
 * execute or commands; usernames are unique case-insensitively; the password policy holds;
 * createUserDir homes are unique after normalisation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, startFm, type FmServer } from '../helpers/server.ts';
import { decodeToken, rawRequest } from '../helpers/http-raw.ts';

// Tests read arbitrary JSON shapes from the API.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

let nextAddress = 10;
/** Signs up from a fresh source address each time (sign-ups are limited per address). */
async function signup(username: unknown, password: unknown, localAddress = `127.0.1.${nextAddress++ % 250}`): Promise<Response> {
  const raw = await rawRequest(fm.url, {
    method: 'POST',
    path: '/api/signup',
    body: JSON.stringify({ username, password }),
    localAddress,
  });
  return new Response(new Uint8Array(raw.body), { status: raw.status, headers: raw.headers as Record<string, string> });
}

async function putSettings(changes: Record<string, unknown>): Promise<void> {
  const current = await admin.json<Record<string, unknown>>('/api/settings');
  const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...current, ...changes } });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function userByName(name: string): Promise<Json> {
  const users = await admin.json<Array<Json>>('/api/users');
  const u = users.find((x) => x.username === name);
  if (!u) throw new Error(`no user ${name}`);
  return u;
}

describe('PROV signup disabled', () => {
  it('answers 405 while signup is off (the default)', async () => {
    const res = await signup('mallory', 'a-long-password-77');
    expect(res.status).toBe(405);
    expect((await admin.json<unknown[]>('/api/users')).length).toBe(1);
  });
});

describe('PROV signup enabled', () => {
  beforeAll(async () => {
    // The defaults grant everything an admin could want to hand out; signup must not.
    const s = await admin.json<Json>('/api/settings');
    await putSettings({
      signup: true,
      defaults: {
        ...s.defaults,
        scope: '/shared',
        perm: { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true },
        commands: ['ls', 'rm'],
      },
    });
  });

  it('creates a user who can log in, with 200 and no token', async () => {
    const res = await signup('newbie', 'newbie-password-1');
    expect(res.status).toBe(200);
    expect(await res.text()).not.toMatch(/\./);
    const c = new Client(fm.url);
    await c.login('newbie', 'newbie-password-1');
    expect(decodeToken(c.token).user.username).toBe('newbie');
  });

  it('never grants admin, execute or commands even when the defaults do (GHSA-5gg9, GHSA-x8jc)', async () => {
    const u = await userByName('newbie');
    expect(u.perm).toMatchObject({ admin: false, execute: false, create: true, download: true });
    expect(u.commands).toEqual([]);
    expect(u.scope).toBe('/shared');
    expect(u.lockPassword).toBe(false);
  });

  it('cannot be tricked into admin through extra body fields', async () => {
    const res = await fetch(`${fm.url}/api/signup`, {
      method: 'POST',
      body: JSON.stringify({ username: 'sneaky', password: 'sneaky-password-1', perm: { admin: true }, data: { perm: { admin: true } }, scope: '/' }),
    });
    expect(res.status).toBe(200);
    const u = await userByName('sneaky');
    expect(u.perm.admin).toBe(false);
    expect(u.scope).toBe('/shared');
  });

  it('answers 409 on a taken username, whatever its case', async () => {
    expect((await signup('newbie', 'another-password-1')).status).toBe(409);
    expect((await signup('NewBie', 'another-password-1')).status).toBe(409);
    expect((await signup('ADMIN', 'another-password-1')).status).toBe(409);
  });

  it('answers 400 when the password breaks the policy', async () => {
    const short = await signup('shorty', 'short-pw');
    expect(short.status).toBe(400);
    expect(await short.text()).toMatch(/too short/);
    const common = await signup('commoner', 'password1234');
    expect(common.status).toBe(400);
    expect(await common.text()).toMatch(/common/);
    const long = await signup('longer', 'é'.repeat(40));
    expect(long.status).toBe(400);
  });

  it('answers 400 on empty fields, wrong types and bad JSON', async () => {
    expect((await signup('', 'a-long-password-77')).status).toBe(400);
    expect((await signup('   ', 'a-long-password-77')).status).toBe(400);
    expect((await signup('someone', '')).status).toBe(400);
    expect((await signup(42, 'a-long-password-77')).status).toBe(400);
    expect((await signup('someone', { pw: 1 })).status).toBe(400);
    expect((await fetch(`${fm.url}/api/signup`, { method: 'POST', body: '{' })).status).toBe(400);
  });

  it('answers 400 on a username with a slash or a control character', async () => {
    expect((await signup('a/b', 'a-long-password-77')).status).toBe(400);
    expect((await signup('a\u0000b', 'a-long-password-77')).status).toBe(400);
  });

  it('DOS: limits sign-ups per client address (every attempt counts), then 429 with Retry-After', async () => {
    const from = '127.0.2.7';
    for (let i = 0; i < 10; i++) expect((await signup(`flood${i}`, 'a-long-flood-password', from)).status).not.toBe(429);
    const res = await signup('flood-last', 'a-long-flood-password', from);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await signup('flood-other', 'a-long-flood-password', '127.0.2.8')).status).toBe(200);
  });

  it('follows the minimum length set by the admin', async () => {
    await putSettings({ minimumPasswordLength: 20 });
    expect((await signup('strict', 'only-19-characters!')).status).toBe(400);
    expect((await signup('strict', 'exactly-20-characters')).status).toBe(200);
    await putSettings({ minimumPasswordLength: 12 });
  });
});

describe('PROV createUserDir homes', () => {
  beforeAll(async () => {
    await putSettings({ createUserDir: true, userHomeBasePath: '/home' });
  });

  it('gives a new user a home folder under userHomeBasePath and creates it', async () => {
    expect((await signup('homer', 'homer-password-1')).status).toBe(200);
    const u = await userByName('homer');
    expect(u.scope).toBe('/home/homer');
    expect(fs.statSync(path.join(fm.root, 'home', 'homer')).isDirectory()).toBe(true);
  });

  it('creates the home with the configured dirMode', async () => {
    const mode = fs.statSync(path.join(fm.root, 'home', 'homer')).mode & 0o777;
    expect(mode).toBe(0o750);
  });

  it('strips ".." and unsafe characters from the folder name (GHSA-7rc3)', async () => {
    expect((await signup('..evil..', 'evil-password-123')).status).toBe(200);
    expect((await userByName('..evil..')).scope).toBe('/home/evil');
    expect((await signup('two words', 'spaced-password-1')).status).toBe(200);
    expect((await userByName('two words')).scope).toBe('/home/two-words');
    expect(fs.existsSync(path.join(fm.root, 'evil'))).toBe(false);
  });

  it('answers 409 when the normalised home already belongs to someone (GHSA-576v)', async () => {
    expect((await signup('two-words', 'dashed-password-1')).status).toBe(409);
    expect((await signup('two  words', 'double-space-pass-1')).status).toBe(409);
    expect((await signup('evil', 'plain-evil-password')).status).toBe(409);
    expect((await signup('Two-Words', 'case-folded-pass-1')).status).toBe(409);
  });

  it('gives unique homes under concurrent signups of colliding names', async () => {
    const results = await Promise.all(['race one', 'race-one', 'race--one', 'race/one'].map((n) => signup(n, 'racing-password-12')));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400, 409, 409]);
    const homes = (await admin.json<Array<{ scope: string }>>('/api/users')).map((u) => u.scope.toLowerCase()).filter((s) => s.startsWith('/home/'));
    expect(new Set(homes).size).toBe(homes.length);
  });
});
