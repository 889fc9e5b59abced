import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsSchema } from '../../src/schemas/settings.ts';
import { exportConfig, exportUsers, parseConfigImport, parseDocument, parseUsersImport, planImport, serialiseDocument } from '../../src/cli/transfer.ts';
import { parseSettings } from '../../src/services/settings.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';
import { PROJECT_ROOT } from '../helpers/server.ts';

const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'test/fixtures', name), 'utf8'));
const HASH = '$2a$10$694HG24onzt33sNblM3XM.M.cfmkUxmtXqFD8twzLCVTJUQ1/0imW';

describe('config export and import (filebrowser shapes)', () => {
  it('reads a filebrowser config export into valid fm settings', () => {
    const { settings, ignored } = parseConfigImport(fixture('filebrowser-config.json'));
    const s = parseSettings(settings);
    expect(s).toMatchObject({
      signup: true,
      hideLoginButton: true,
      createUserDir: true,
      userHomeBasePath: '/home',
      minimumPasswordLength: 14,
      authMethod: 'json',
      auth: { recaptcha: null, header: '', command: '' },
      branding: { name: 'Old Files', disableExternal: true, theme: 'dark', color: '#2979ff' },
      tus: { chunkSize: 5242880, retryCount: 3 },
      shell: [],
      enableThumbnails: false,
      enableExec: false,
      fileMode: 0o640,
      dirMode: 0o750,
    });
    expect(s.rules).toEqual([
      { regex: false, allow: false, path: '/secret', regexp: { raw: '' } },
      { regex: true, allow: false, path: '', regexp: { raw: '\\.bak$' } },
    ]);
    expect(s.defaults).toMatchObject({ locale: 'de', viewMode: 'mosaic', commands: [], hideDotfiles: true, sorting: { by: 'modified', asc: false } });
    expect(s.commands.after_upload).toEqual(['/bin/echo uploaded']);
    // The signing key is kept; serve options are reported, not stored.
    expect(ignored).toEqual(expect.arrayContaining(['server.root', 'server.baseURL', 'server.port', 'server.address']));
    expect(ignored).not.toContain('settings.key');
  });

  it('round-trips fm settings through export and import', () => {
    const original = parseSettings({
      ...SettingsSchema.parse({}),
      signup: true,
      authMethod: 'proxy',
      auth: { header: 'X-User', command: '', recaptcha: { host: 'https://r.example', key: 'k', secret: 's' } },
      rules: [{ regex: true, allow: true, path: '', regexp: { raw: 'a+' } }],
      enableExec: true,
      maxUploadSize: 1234,
      auditRetention: 7 * 86400,
    });
    for (const name of ['x.json', 'x.yaml']) {
      const text = serialiseDocument(exportConfig(original), name);
      expect(parseSettings(parseConfigImport(parseDocument(text, name)).settings)).toEqual(original);
    }
  });

  it('reads filebrowser auther shapes of each method', () => {
    const base = { settings: { authMethod: 'proxy' }, server: {} };
    expect(parseSettings(parseConfigImport({ ...base, auther: { header: 'X-Remote-User' } }).settings).auth.header).toBe('X-Remote-User');
    const hook = parseConfigImport({ settings: { authMethod: 'hook' }, auther: { command: '/bin/check-user' } }).settings;
    expect(parseSettings(hook)).toMatchObject({ authMethod: 'hook', auth: { command: '/bin/check-user' } });
    const rc = parseConfigImport({ settings: {}, auther: { recaptcha: { host: '', key: 'k', secret: 's' } } }).settings;
    expect(parseSettings(rc).auth.recaptcha).toEqual({ host: 'https://www.google.com', key: 'k', secret: 's' });
  });

  it('refuses malformed documents with a clear message', () => {
    expect(() => parseDocument('', 'f.json')).toThrow(/f.json is empty/);
    expect(() => parseDocument('{"a":', 'f.json')).toThrow(/f.json is not valid JSON/);
    expect(() => parseConfigImport([])).toThrow(/expected a JSON object/);
    expect(() => parseConfigImport({ settings: 3 })).toThrow(/"settings" must be an object/);
    expect(() => parseSettings(parseConfigImport({ settings: { signup: 'yes' } }).settings)).toThrow(/signup/);
    expect(() => parseSettings(parseConfigImport({ settings: { rules: [{ regex: true, regexp: { raw: '(' } }] } }).settings)).toThrow(
      /invalid regular expression/,
    );
    expect(() => parseConfigImport({ settings: { defaults: { perm: { root: true } } } })).toThrow(/unknown permission "root"/);
  });
});

describe('users export and import', () => {
  it('reads a filebrowser users export', () => {
    const users = parseUsersImport(fixture('filebrowser-users.json'));
    expect(users.map((u) => [u.id, u.username, u.scope, u.locale])).toEqual([
      [1, 'admin', '/', 'en'],
      [3, 'alice', '/home/alice', 'zhCN'],
    ]);
    expect(users[1]).toMatchObject({ lockPassword: true, commands: [], rules: [{ path: '/private', regexp: { raw: '' } }], sorting: { by: 'size' } });
  });

  it.each([
    [{}, /expected a JSON array/],
    [[], /holds no users/],
    [[3], /user #1: not an object/],
    [[{ username: 'x', password: 'plain' }], /user #1 \("x"\): the password is not a bcrypt hash/],
    [[{ username: '', password: HASH }], /the username is missing/],
    [[{ id: -1, username: 'x', password: HASH }], /the id is not a whole number/],
    [[{ username: 'x', password: HASH, perm: { sudo: true } }], /unknown permission "sudo"/],
    [[{ username: 'x', password: HASH, perm: { share: true, download: false } }], /share permission requires download/],
    [[{ username: 'x', password: HASH, lockPassword: 'no' }], /lockPassword/],
    [[{ username: 'x', password: HASH, rules: [{ regex: true, regexp: { raw: '(' } }] }], /user #1 \("x"\): invalid regular expression in the rules/],
  ])('refuses %j', (data, message) => {
    expect(() => parseUsersImport(data)).toThrow(message);
  });

  it('round-trips users through export and import', () => {
    const users = parseUsersImport(fixture('filebrowser-users.json'));
    const records = users.map((u) => ({ ...u, sessionEpoch: 0, updatedAt: 0 })) as UserRecord[];
    expect(parseUsersImport(parseDocument(serialiseDocument(exportUsers(records), 'u.json'), 'u.json'))).toEqual(users);
  });
});

describe('planning an import', () => {
  const user = (id: number, username: string, admin = false) =>
    ({ ...parseUsersImport([{ id, username, password: HASH, perm: { admin } }])[0], sessionEpoch: 1, updatedAt: 0 }) as UserRecord;

  it('keeps free ids and assigns new ones to id 0', () => {
    const plan = planImport([user(1, 'admin', true)], [user(5, 'bob'), user(0, 'carol')], { overwrite: false, replace: false });
    expect(plan.records.map((u) => [u.id, u.username])).toEqual([
      [1, 'admin'],
      [5, 'bob'],
      [6, 'carol'],
    ]);
  });

  it('refuses a taken id without --overwrite, replaces it with', () => {
    expect(() => planImport([user(1, 'admin', true)], [user(1, 'root', true)], { overwrite: false, replace: false })).toThrow(
      /user id 1 is already taken by "admin"/,
    );
    const plan = planImport([user(1, 'admin', true)], [user(1, 'root', true)], { overwrite: true, replace: false });
    expect(plan).toMatchObject({ overwritten: 1, records: [{ id: 1, username: 'root' }] });
  });

  it('revokes the sessions of every imported id', () => {
    const plan = planImport([user(1, 'admin', true)], [user(1, 'admin', true)], { overwrite: true, replace: false });
    expect(plan.records[0].sessionEpoch).toBeGreaterThan(1);
  });

  it('refuses two users with one name, whatever the case', () => {
    expect(() => planImport([user(1, 'admin', true)], [user(2, 'ADMIN')], { overwrite: false, replace: false })).toThrow(/two users/);
    expect(planImport([user(1, 'admin', true)], [user(2, 'ADMIN', true)], { overwrite: false, replace: true }).records).toHaveLength(1);
  });
});
