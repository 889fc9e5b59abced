/**
 * AUTHZ/LEAK/EXEC: the settings API (reference §5). Admin only; wrong types and bad rules
 * are 400; the auth method and its options (the hook command) are never changed through
 * the API; the signing key never leaves the server; changes apply at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { withDb } from '../helpers/http-raw.ts';

// Tests read arbitrary JSON shapes from the API.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let fm: FmServer;
let admin: Client;
let user: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  user = (await createUser(admin, fm, 'plain')).client;
});
afterAll(async () => {
  await fm.stop();
});

const getSettings = () => admin.json<Json>('/api/settings');
const putSettings = (body: unknown, c: Client = admin) => c.fetch('/api/settings', { method: 'PUT', json: body });

describe('AUTHZ settings are admin-only', () => {
  it('answers 403 to a non-admin and 401 to nobody, for GET and PUT', async () => {
    expect((await user.fetch('/api/settings')).status).toBe(403);
    expect((await putSettings({ signup: true }, user)).status).toBe(403);
    expect((await fetch(`${fm.url}/api/settings`)).status).toBe(401);
    expect((await fetch(`${fm.url}/api/settings`, { method: 'PUT', body: '{"signup":true}' })).status).toBe(401);
    expect((await getSettings()).signup).toBe(false);
  });

  it('answers 405 to other methods', async () => {
    expect((await admin.fetch('/api/settings', { method: 'DELETE' })).status).toBe(405);
    expect((await admin.fetch('/api/settings', { method: 'POST', json: {} })).status).toBe(405);
  });
});

describe('settings shape', () => {
  it('has the filebrowser keys with the defaults of reference §5', async () => {
    const s = await getSettings();
    for (const key of [
      'signup',
      'hideLoginButton',
      'createUserDir',
      'minimumPasswordLength',
      'userHomeBasePath',
      'defaults',
      'authMethod',
      'rules',
      'branding',
      'tus',
      'shell',
      'commands',
    ]) {
      expect(s, key).toHaveProperty(key);
    }
    expect(s.defaults).toMatchObject({ scope: '.', locale: 'en', viewMode: 'list', sorting: { by: 'name', asc: true } });
    expect(Object.keys(s.commands).sort()).toEqual([
      'after_copy',
      'after_delete',
      'after_rename',
      'after_save',
      'after_upload',
      'before_copy',
      'before_delete',
      'before_rename',
      'before_save',
      'before_upload',
    ]);
  });

  it('never exposes the signing key or a recaptcha secret (LEAK)', async () => {
    const key = await withDb(fm.dbFile, async ({ settings }) => (await settings.signingKey()).toString('base64'));
    const text = await (await admin.fetch('/api/settings')).text();
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(0, 20));
    expect(JSON.parse(text)).not.toHaveProperty('key');
    expect(JSON.parse(text).auth?.recaptcha?.secret).toBeUndefined();
  });
});

describe('PUT /api/settings', () => {
  it('saves a change and answers 200; the change is visible at once', async () => {
    const s = await getSettings();
    // Signup with a home folder per user (with the whole root for everyone it is refused: provisioning-defaults.test.ts).
    const res = await putSettings({
      ...s,
      signup: true,
      createUserDir: true,
      branding: { ...s.branding, name: 'My Files' },
      tus: { chunkSize: 1048576, retryCount: 2 },
    });
    expect(res.status).toBe(200);
    const after = await getSettings();
    expect(after).toMatchObject({ signup: true, createUserDir: true, branding: { name: 'My Files' }, tus: { chunkSize: 1048576, retryCount: 2 } });
    // Signup works immediately, and the page shows the new name, without a restart.
    expect((await fetch(`${fm.url}/api/signup`, { method: 'POST', body: JSON.stringify({ username: 'walkin', password: 'walk-in-password-1' }) })).status).toBe(
      200,
    );
    expect(await (await fetch(`${fm.url}/`)).text()).toContain('<title>My Files</title>');
  });

  it('accepts a partial body: missing keys keep their values', async () => {
    const res = await putSettings({ hideLoginButton: true });
    expect(res.status).toBe(200);
    expect(await getSettings()).toMatchObject({ hideLoginButton: true, signup: true });
  });

  it('answers 400 on wrong types, naming the field', async () => {
    const cases: Array<[Json, RegExp]> = [
      [{ signup: 'yes' }, /signup/],
      [{ minimumPasswordLength: '12' }, /minimumPasswordLength/],
      [{ minimumPasswordLength: 0 }, /minimumPasswordLength/],
      [{ tus: { chunkSize: -1, retryCount: 5 } }, /tus/],
      [{ tus: { chunkSize: 1.5, retryCount: 5 } }, /tus/],
      [{ shell: 'sh -c' }, /shell/],
      [{ commands: { before_save: 'echo' } }, /commands/],
      [{ defaults: { perm: { admin: 'no' } } }, /defaults/],
      [{ branding: { name: 42 } }, /branding/],
      [{ rules: {} }, /rules/],
      [{ fileMode: 0o7777 }, /fileMode/],
      [{ defaults: { scope: '../outside' } }, /scope/],
    ];
    for (const [body, msg] of cases) {
      const res = await putSettings(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.text()).toMatch(msg);
    }
  });

  it('answers 400 on bad rules: an invalid regex or a path rule without a path', async () => {
    expect((await putSettings({ rules: [{ regex: true, allow: false, regexp: { raw: '(unclosed' } }] })).status).toBe(400);
    expect((await putSettings({ rules: [{ regex: false, allow: false, path: '' }] })).status).toBe(400);
    expect(
      (
        await putSettings({
          rules: [
            { regex: true, allow: false, path: '', regexp: { raw: '\\.secret$' } },
            { regex: false, allow: false, path: '/private' },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await getSettings()).rules).toHaveLength(2);
  });

  it('answers 400 on a userHomeBasePath that climbs out of the root, and cleans a relative one', async () => {
    expect((await putSettings({ userHomeBasePath: '/../etc' })).status).toBe(400);
    expect((await putSettings({ userHomeBasePath: 'homes//x/.' })).status).toBe(200);
    expect((await getSettings()).userHomeBasePath).toBe('/homes/x');
  });

  it('answers 400 on a body that is not an object, or bad JSON', async () => {
    for (const raw of ['[]', '"x"', 'null', '{"signup":', '42']) {
      const res = await admin.fetch('/api/settings', { method: 'PUT', body: raw });
      expect(res.status, raw).toBe(400);
    }
  });

  it('ignores authMethod and the auth options (the hook command is an RCE surface)', async () => {
    const s = await getSettings();
    const res = await putSettings({ ...s, authMethod: 'hook', auth: { command: 'touch /tmp/pwned', header: 'X-Evil' } });
    expect(res.status).toBe(200);
    const after = await getSettings();
    expect(after.authMethod).toBe('json');
    expect(after.auth.command).toBe('');
    expect(after.auth.header).toBe('');
    const stored = await withDb(fm.dbFile, async ({ settings }) => settings.get());
    expect(stored.authMethod).toBe('json');
    expect(stored.auth.command).toBe('');
    expect(await (await fetch(`${fm.url}/`)).text()).toContain('"AuthMethod":"json"');
  });

  it('fills missing hook trigger keys and keeps custom command lists', async () => {
    expect((await putSettings({ commands: { before_save: ['echo saving'] } })).status).toBe(200);
    const after = await getSettings();
    expect(after.commands.before_save).toEqual(['echo saving']);
    expect(after.commands.after_delete).toEqual([]);
  });

  it('applies user defaults to users created afterwards', async () => {
    const s = await getSettings();
    expect((await putSettings({ defaults: { ...s.defaults, locale: 'pt', viewMode: 'mosaic' } })).status).toBe(200);
    expect(
      (await fetch(`${fm.url}/api/signup`, { method: 'POST', body: JSON.stringify({ username: 'defaulted', password: 'defaulted-pass-12' }) })).status,
    ).toBe(200);
    const u = (await admin.json<Json[]>('/api/users')).find((x) => x.username === 'defaulted')!;
    expect(u).toMatchObject({ locale: 'pt', viewMode: 'mosaic' });
  });
});
