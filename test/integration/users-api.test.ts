/**
 * AUTHZ/LEAK: the users API (reference §1). Only admins list, create and manage users; a
 * user reads and updates their own profile fields; sensitive changes need the current
 * password; passwords and (for non-admins) scopes are never returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';

// Tests read arbitrary JSON shapes from the API.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let fm: FmServer;
let admin: Client;
let bob: { client: Client; id: number; password: string };
let locked: { client: Client; id: number; password: string };

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  bob = await createUser(admin, fm, 'bob', { scope: '/bob', perm: { create: true, download: true } });
  locked = await createUser(admin, fm, 'locked', { lockPassword: true, scope: '/locked' });
});
afterAll(async () => {
  await fm.stop();
});

const put = (c: Client, id: number | string, body: Json) => c.fetch(`/api/users/${id}`, { method: 'PUT', json: { what: 'user', ...body } });
const post = (c: Client, body: Json) =>
  c.fetch('/api/users', { method: 'POST', json: { what: 'user', which: [], current_password: fm.adminPassword, ...body } });

describe('AUTHZ users list and create are admin-only', () => {
  it('lists users sorted by id with blank passwords for an admin', async () => {
    const users = await admin.json<Json[]>('/api/users');
    expect(users.map((u) => u.username)).toEqual(['admin', 'bob', 'locked']);
    expect(users.map((u) => u.id)).toEqual([1, bob.id, locked.id]);
    for (const u of users) expect(u.password).toBe('');
    expect(users[1].scope).toBe('/bob');
  });

  it('answers 403 to a non-admin and 401 to nobody', async () => {
    expect((await bob.client.fetch('/api/users')).status).toBe(403);
    expect((await fetch(`${fm.url}/api/users`)).status).toBe(401);
    expect((await post(bob.client, { current_password: bob.password, data: { username: 'x', password: 'a-long-password-1' } })).status).toBe(403);
  });

  it('creates with 201 and Location, applying the fields given', async () => {
    const res = await post(admin, { data: { username: 'fresh', password: 'fresh-password-12', locale: 'fr', viewMode: 'mosaic', scope: '/fresh' } });
    expect(res.status).toBe(201);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/settings\/users\/\d+$/);
    const u = await admin.json<Json>(`/api/users/${location.split('/').pop()}`);
    expect(u).toMatchObject({ username: 'fresh', locale: 'fr', viewMode: 'mosaic', scope: '/fresh', password: '' });
  });

  it('gives every permission to a user created as admin', async () => {
    const res = await post(admin, { data: { username: 'admin2', password: 'admin2-password-1', perm: { admin: true } } });
    expect(res.status).toBe(201);
    const u = await admin.json<Json>(`/api/users/${res.headers.get('location')!.split('/').pop()}`);
    expect(Object.values(u.perm).every(Boolean)).toBe(true);
  });

  it('answers 409 on a duplicate username, whatever its case', async () => {
    expect((await post(admin, { data: { username: 'bob', password: 'another-password-1' } })).status).toBe(409);
    expect((await post(admin, { data: { username: 'BOB', password: 'another-password-1' } })).status).toBe(409);
  });

  it('answers 400 when the current password is missing or wrong (json auth)', async () => {
    const missing = await admin.fetch('/api/users', {
      method: 'POST',
      json: { what: 'user', which: [], data: { username: 'x1', password: 'a-long-password-1' } },
    });
    expect(missing.status).toBe(400);
    const wrong = await post(admin, { current_password: 'not-the-password', data: { username: 'x1', password: 'a-long-password-1' } });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toMatch(/current password is incorrect/);
  });

  it('answers 400 on bad bodies, never 500', async () => {
    const cases: Json[] = [
      { what: 'share', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'a-long-password-1' } },
      { what: 'user', which: ['username'], current_password: fm.adminPassword, data: { username: 'x2', password: 'a-long-password-1' } },
      { what: 'user', which: [], current_password: fm.adminPassword },
      { what: 'user', which: 'all', current_password: fm.adminPassword, data: {} },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: '' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'short' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'password1234' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: '', password: 'a-long-password-1' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 7, password: 'a-long-password-1' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'a-long-password-1', perm: 'all' } },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'a-long-password-1', locale: 5 } },
      {
        what: 'user',
        which: [],
        current_password: fm.adminPassword,
        data: { username: 'x2', password: 'a-long-password-1', perm: { share: true, download: false } },
      },
      { what: 'user', which: [], current_password: fm.adminPassword, data: { username: 'x2', password: 'a-long-password-1', scope: '/../etc' } },
      {
        what: 'user',
        which: [],
        current_password: fm.adminPassword,
        data: { username: 'x2', password: 'a-long-password-1', rules: [{ regex: true, allow: false, regexp: { raw: '([' } }] },
      },
      {
        what: 'user',
        which: [],
        current_password: fm.adminPassword,
        data: { username: 'x2', password: 'a-long-password-1', rules: [{ regex: false, allow: false, path: '' }] },
      },
    ];
    for (const body of cases) {
      const res = await admin.fetch('/api/users', { method: 'POST', json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    for (const raw of ['{', 'null', '[]', '"user"']) {
      const res = await admin.fetch('/api/users', { method: 'POST', body: raw });
      expect(res.status, raw).toBe(400);
    }
    expect((await admin.json<Json[]>('/api/users')).some((u) => u.username === 'x2')).toBe(false);
  });
});

describe('AUTHZ reading one user', () => {
  it('lets a user read their own profile, without the scope', async () => {
    const me = await bob.client.json<Json>(`/api/users/${bob.id}`);
    expect(me).toMatchObject({ id: bob.id, username: 'bob', password: '', scope: '' });
  });

  it('answers 403 when a user reads someone else (IDOR)', async () => {
    expect((await bob.client.fetch('/api/users/1')).status).toBe(403);
    expect((await bob.client.fetch(`/api/users/${locked.id}`)).status).toBe(403);
  });

  it('answers 403, not 404, to a non-admin asking for an id that does not exist', async () => {
    expect((await bob.client.fetch('/api/users/9999')).status).toBe(403);
  });

  it('answers 404 to an admin for an unknown id and for non-numeric ids', async () => {
    for (const id of ['9999', 'abc', '0', '-1', '1.0', '0x1', '1e0', '%201']) {
      expect((await admin.fetch(`/api/users/${id}`)).status, id).toBe(404);
    }
    expect((await put(admin, 'abc', { which: ['locale'], data: { locale: 'de' } })).status).toBe(404);
    expect((await admin.fetch('/api/users/abc', { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 405 to a method the route does not have', async () => {
    const res = await admin.fetch('/api/users/1', { method: 'POST', json: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toMatch(/PUT/);
    expect((await admin.fetch('/api/users', { method: 'PATCH' })).status).toBe(405);
  });

  it('never returns a password hash anywhere', async () => {
    const bodies = [
      await (await admin.fetch('/api/users')).text(),
      await (await admin.fetch(`/api/users/${bob.id}`)).text(),
      await (await bob.client.fetch(`/api/users/${bob.id}`)).text(),
    ];
    for (const b of bodies) expect(b).not.toMatch(/\$2[aby]\$/);
  });
});

describe('AUTHZ a user updating their own profile', () => {
  it('may change profile fields without the current password', async () => {
    const res = await put(bob.client, bob.id, {
      which: ['locale', 'viewMode', 'singleClick', 'hideDotfiles', 'dateFormat', 'sorting', 'aceEditorTheme', 'redirectAfterCopyMove'],
      data: {
        id: bob.id,
        locale: 'de',
        viewMode: 'mosaic',
        singleClick: true,
        hideDotfiles: true,
        dateFormat: true,
        sorting: { by: 'size', asc: false },
        aceEditorTheme: 'dark',
        redirectAfterCopyMove: false,
      },
    });
    expect(res.status).toBe(200);
    const me = await admin.json<Json>(`/api/users/${bob.id}`);
    expect(me).toMatchObject({
      locale: 'de',
      viewMode: 'mosaic',
      singleClick: true,
      hideDotfiles: true,
      dateFormat: true,
      sorting: { by: 'size', asc: false },
    });
  });

  it('accepts filebrowser Title-case field names in which', async () => {
    const res = await put(bob.client, bob.id, { which: ['Locale'], data: { id: bob.id, locale: 'fr' } });
    expect(res.status).toBe(200);
    expect((await admin.json<Json>(`/api/users/${bob.id}`)).locale).toBe('fr');
  });

  it('only changes the listed fields', async () => {
    await put(bob.client, bob.id, { which: ['locale'], data: { id: bob.id, locale: 'it', viewMode: 'list', singleClick: false } });
    expect(await admin.json<Json>(`/api/users/${bob.id}`)).toMatchObject({ locale: 'it', viewMode: 'mosaic', singleClick: true });
  });

  it('answers 403 to admin-only fields (#1196), even with the right current password', async () => {
    const cases: Array<[string, Json]> = [
      ['username', { username: 'bobby' }],
      ['scope', { scope: '/' }],
      ['perm', { perm: { admin: true, create: true, download: true } }],
      ['commands', { commands: ['rm'] }],
      ['rules', { rules: [] }],
      ['lockPassword', { lockPassword: false }],
    ];
    for (const [field, data] of cases) {
      const res = await put(bob.client, bob.id, { which: [field], current_password: bob.password, data: { id: bob.id, ...data } });
      expect(res.status, field).toBe(403);
    }
    for (const which of [[], ['all']]) {
      const res = await put(bob.client, bob.id, { which, current_password: bob.password, data: { id: bob.id, locale: 'en' } });
      expect(res.status, JSON.stringify(which)).toBe(403);
    }
    const me = await admin.json<Json>(`/api/users/${bob.id}`);
    expect(me).toMatchObject({ username: 'bob', scope: '/bob', perm: { admin: false }, commands: [] });
  });

  it('answers 403 when updating someone else', async () => {
    const res = await put(bob.client, locked.id, { which: ['locale'], data: { id: locked.id, locale: 'de' } });
    expect(res.status).toBe(403);
    const admin1 = await put(bob.client, 1, { which: ['password'], current_password: bob.password, data: { id: 1, password: 'taken-over-pass-1' } });
    expect(admin1.status).toBe(403);
  });

  it('answers 400 when data.id does not match the URL, or on an unknown field or wrong type', async () => {
    expect((await put(bob.client, bob.id, { which: ['locale'], data: { id: 1, locale: 'de' } })).status).toBe(400);
    expect((await put(bob.client, bob.id, { which: ['favouriteColour'], data: { id: bob.id } })).status).toBe(400);
    expect((await put(bob.client, bob.id, { which: ['singleClick'], data: { id: bob.id, singleClick: 'yes' } })).status).toBe(400);
    expect((await bob.client.fetch(`/api/users/${bob.id}`, { method: 'PUT', body: '{"what":"user"' })).status).toBe(400);
    expect((await bob.client.fetch(`/api/users/${bob.id}`, { method: 'PUT', json: { what: 'share', which: [], data: {} } })).status).toBe(400);
  });
});

describe('AUTHZ password changes (GHSA-hxw8)', () => {
  it('needs the current password: 400 when missing or wrong', async () => {
    const missing = await put(bob.client, bob.id, { which: ['password'], data: { id: bob.id, password: 'bob-new-password-1' } });
    expect(missing.status).toBe(400);
    const wrong = await put(bob.client, bob.id, {
      which: ['password'],
      current_password: 'nope-nope-nope',
      data: { id: bob.id, password: 'bob-new-password-1' },
    });
    expect(wrong.status).toBe(400);
    await new Client(fm.url).login('bob', bob.password);
  });

  it('applies the password policy', async () => {
    const res = await put(bob.client, bob.id, { which: ['password'], current_password: bob.password, data: { id: bob.id, password: 'short' } });
    expect(res.status).toBe(400);
  });

  it('lockPassword blocks changing one own password (403)', async () => {
    const res = await put(locked.client, locked.id, {
      which: ['password'],
      current_password: locked.password,
      data: { id: locked.id, password: 'locked-new-pass-1' },
    });
    expect(res.status).toBe(403);
    await new Client(fm.url).login('locked', locked.password);
  });

  it('lets an admin set a locked user password (with the admin current password)', async () => {
    const res = await put(admin, locked.id, { which: ['password'], current_password: fm.adminPassword, data: { id: locked.id, password: 'reset-by-admin-1' } });
    expect(res.status).toBe(200);
    locked.password = 'reset-by-admin-1';
    locked.client = new Client(fm.url);
    await locked.client.login('locked', locked.password);
  });

  it('treats an empty password as "keep the old one"', async () => {
    const res = await put(admin, locked.id, {
      which: ['all'],
      current_password: fm.adminPassword,
      data: { ...(await admin.json<Json>(`/api/users/${locked.id}`)), password: '' },
    });
    expect(res.status).toBe(200);
    await new Client(fm.url).login('locked', locked.password);
  });
});

describe('AUTHZ admin updates', () => {
  it('needs the admin current password for sensitive fields', async () => {
    const res = await put(admin, bob.id, { which: ['scope'], data: { id: bob.id, scope: '/elsewhere' } });
    expect(res.status).toBe(400);
    const ok = await put(admin, bob.id, { which: ['scope'], current_password: fm.adminPassword, data: { id: bob.id, scope: 'elsewhere/./sub' } });
    expect(ok.status).toBe(200);
    expect((await admin.json<Json>(`/api/users/${bob.id}`)).scope).toBe('/elsewhere/sub');
  });

  it('answers 400 to a scope that climbs out of the root', async () => {
    const res = await put(admin, bob.id, { which: ['scope'], current_password: fm.adminPassword, data: { id: bob.id, scope: '/a/../../etc' } });
    expect(res.status).toBe(400);
  });

  it('answers 409 when renaming to a taken username', async () => {
    const res = await put(admin, bob.id, { which: ['username'], current_password: fm.adminPassword, data: { id: bob.id, username: 'Locked' } });
    expect(res.status).toBe(409);
  });

  it('renames, and the old name is free again', async () => {
    expect((await put(admin, bob.id, { which: ['username'], current_password: fm.adminPassword, data: { id: bob.id, username: 'robert' } })).status).toBe(200);
    await new Client(fm.url).login('robert', bob.password);
    expect((await post(admin, { data: { username: 'bob', password: 'second-bob-pass-1' } })).status).toBe(201);
  });

  it('promoting to admin grants every permission and clears lockPassword', async () => {
    const res = await put(admin, locked.id, { which: ['perm'], current_password: fm.adminPassword, data: { id: locked.id, perm: { admin: true } } });
    expect(res.status).toBe(200);
    const u = await admin.json<Json>(`/api/users/${locked.id}`);
    expect(Object.values(u.perm).every(Boolean)).toBe(true);
    expect(u.lockPassword).toBe(false);
  });

  it('answers 404 for an unknown id', async () => {
    expect((await put(admin, 9999, { which: ['locale'], data: { id: 9999, locale: 'de' } })).status).toBe(404);
  });
});

describe('AUTHZ deleting users and the last admin', () => {
  it('never demotes or deletes the last admin (403)', async () => {
    const { status, headers } = await post(admin, { data: { username: 'solo-check', password: 'solo-check-pass-1' } });
    expect(status).toBe(201);
    const admins = (await admin.json<Json[]>('/api/users')).filter((u) => u.perm.admin);
    // Leave only admin (id 1): delete the other admins.
    for (const a of admins.filter((u) => u.id !== 1)) {
      expect((await admin.fetch(`/api/users/${a.id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(200);
    }
    const demote = await put(admin, 1, { which: ['perm'], current_password: fm.adminPassword, data: { id: 1, perm: { create: true, download: true } } });
    expect(demote.status).toBe(403);
    const del = await admin.fetch('/api/users/1', { method: 'DELETE', json: { current_password: fm.adminPassword } });
    expect(del.status).toBe(403);
    expect((await admin.json<Json>('/api/users/1')).perm.admin).toBe(true);
    expect(headers.get('location')).toBeTruthy();
  });

  it('needs the current password to delete (400 when wrong)', async () => {
    const id = Number((await admin.json<Json[]>('/api/users')).find((u) => u.username === 'solo-check')!.id);
    expect((await admin.fetch(`/api/users/${id}`, { method: 'DELETE', json: { current_password: 'wrong-password-1' } })).status).toBe(400);
    expect((await admin.fetch(`/api/users/${id}`, { method: 'DELETE' })).status).toBe(400);
    expect((await admin.fetch(`/api/users/${id}`, { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(200);
    expect((await admin.fetch(`/api/users/${id}`)).status).toBe(404);
  });

  it('answers 404 when deleting an unknown id', async () => {
    expect((await admin.fetch('/api/users/9999', { method: 'DELETE', json: { current_password: fm.adminPassword } })).status).toBe(404);
  });

  it('answers 403 when a non-admin deletes someone else', async () => {
    const eve = await createUser(admin, fm, 'eve-del');
    expect((await eve.client.fetch('/api/users/1', { method: 'DELETE', json: { current_password: eve.password } })).status).toBe(403);
    expect((await eve.client.fetch(`/api/users/${bob.id}`, { method: 'DELETE', json: { current_password: eve.password } })).status).toBe(403);
  });

  it('lets a user delete their own account with their password (filebrowser rule S)', async () => {
    const zed = await createUser(admin, fm, 'zed');
    expect((await zed.client.fetch(`/api/users/${zed.id}`, { method: 'DELETE', json: { current_password: 'wrong-password-1' } })).status).toBe(400);
    expect((await zed.client.fetch(`/api/users/${zed.id}`, { method: 'DELETE', json: { current_password: zed.password } })).status).toBe(200);
    expect((await admin.fetch(`/api/users/${zed.id}`)).status).toBe(404);
  });
});

describe('AUTHZ concurrent demotions', () => {
  it('never leaves the instance without an admin when two admins demote each other at once', async () => {
    const fm2 = await startFm();
    try {
      const root = await adminClient(fm2);
      const other = await createUser(root, fm2, 'second-admin', { perm: { admin: true } });
      const demote = (c: Client, id: number, pw: string) =>
        c.fetch(`/api/users/${id}`, { method: 'PUT', json: { what: 'user', which: ['perm'], current_password: pw, data: { id, perm: { admin: false } } } });
      const results = await Promise.all([demote(root, other.id, fm2.adminPassword), demote(other.client, 1, other.password)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
      const users = await root
        .json<Array<{ perm: { admin: boolean } }>>('/api/users')
        .catch(() => other.client.json<Array<{ perm: { admin: boolean } }>>('/api/users'));
      expect(users.filter((u) => u.perm.admin)).toHaveLength(1);
    } finally {
      await fm2.stop();
    }
  });
});
