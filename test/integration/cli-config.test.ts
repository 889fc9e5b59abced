/**
 * `fm config ...` as a subprocess against the database of a running server; the server sees
 * each change at its next request (it reads the settings from the database per request).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, type Client, startFm, tempDir, type FmServer } from '../helpers/server.ts';

// Each test runs fm as a subprocess several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

let fm: FmServer;
let admin: Client;

function cli(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  return runFm(['--database', fm.dbFile, ...args], opts);
}

async function settings(): Promise<Record<string, any>> {
  return admin.json('/api/settings');
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

describe('fm config set', () => {
  it('turns signup on for the running server, without a restart', async () => {
    const signup = () => fetch(`${fm.url}/api/signup`, { method: 'POST', body: JSON.stringify({ username: 'newbie', password: 'newbie-long-password' }) });
    expect((await signup()).status).toBe(405);
    // With a home folder per user: signup for the whole root is refused (provisioning-defaults.test.ts).
    const r = await cli(['config', 'set', '--signup', '--create-user-dir']);
    expect(r).toEqual({ code: 0, stdout: 'settings updated\n', stderr: '' });
    expect((await settings()).signup).toBe(true);
    expect((await signup()).status).toBe(200);
  });

  it('changes only the settings given: uploads, exec, thumbnails, branding, defaults', async () => {
    const before = await settings();
    const r = await cli([
      'config',
      'set',
      '--tus-chunk-size',
      '1.5GiB',
      '--tus-retry-count',
      '2',
      '--exec',
      '--no-thumbnails',
      '--branding-name',
      'Team files',
      '--branding-theme',
      'dark',
      '--no-perm-delete',
      '--locale',
      'fr',
      '--min-password-length',
      '16',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const expected = {
      ...before,
      tus: { chunkSize: 1.5 * 1024 ** 3, retryCount: 2 },
      enableExec: true,
      enableThumbnails: false,
      branding: { ...before.branding, name: 'Team files', theme: 'dark' },
      defaults: { ...before.defaults, locale: 'fr', perm: { ...before.defaults.perm, delete: false } },
      minimumPasswordLength: 16,
    };
    expect(await settings()).toEqual(expected);
    expect(JSON.parse(r.stdout)).toMatchObject({ tus: expected.tus, enableExec: true });
    // The new minimum applies to the next user the CLI adds.
    expect((await cli(['users', 'add', 'shorty', 'fifteen-chars!!'])).stderr).toMatch(/at least 16 characters/);
  });

  it('switches the auth method of the running server: proxy auth through a header', async () => {
    const viaHeader = () => fetch(`${fm.url}/api/login`, { method: 'POST', headers: { 'X-Remote-User': 'admin' }, body: '{}' });
    expect((await viaHeader()).status).toBe(403);
    expect((await cli(['config', 'set', '--auth-method', 'proxy', '--auth-header', 'X-Remote-User'])).code).toBe(0);
    const res = await viaHeader();
    expect(res.status).toBe(200);
    expect((await res.text()).split('.')).toHaveLength(3);
    expect((await cli(['config', 'set', '--auth-method', 'json'])).code).toBe(0);
    expect((await viaHeader()).status).toBe(403);
    expect((await settings()).auth.header).toBe('X-Remote-User');
  });

  it('takes values from FM_* variables and a --config file; a flag wins over both', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'fm.yaml');
    fs.writeFileSync(file, 'branding:\n  name: From the file\ntus-retry-count: 7\nlogout-page: /bye\n');
    const r = await cli(['config', 'set', '--config', file, '--logout-page', '/flag'], { env: { FM_TUS_RETRY_COUNT: '9' } });
    expect(r.code).toBe(0);
    const s = await settings();
    expect(s.branding.name).toBe('From the file');
    expect(s.tus.retryCount).toBe(9);
    expect(s.logoutPage).toBe('/flag');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each<[string, string[], number, RegExp]>([
    ['no option', [], 2, /nothing to set/],
    ['a bad size', ['--tus-chunk-size', '10XB'], 2, /invalid size unit "XB"/],
    ['a zero chunk size', ['--tus-chunk-size', '0'], 2, /at least 1 bytes/],
    ['an unknown auth method', ['--auth-method', 'ldap'], 2, /Allowed choices are json, noauth, proxy, hook/],
    ['hook auth without a program', ['--auth-method', 'hook'], 2, /needs a program: add --auth-command/],
    ['a bad theme', ['--branding-theme', 'pink'], 2, /expected light, dark or auto/],
    ['a bad mode', ['--file-mode', '999'], 2, /octal/],
    ['a bad number', ['--min-password-length', 'twelve'], 2, /whole number/],
    ['a bad boolean variable', ['--signup'], 2, /FM_EXEC: expected true or false/],
    ['an unknown permission', ['--perm-sudo'], 2, /unknown option '--perm-sudo'/],
    ['a missing config file', ['--signup', '--config', '/nonexistent/fm.yaml'], 2, /cannot read config file/],
  ])('refuses %s with one line and changes nothing', async (_name, args, code, message) => {
    const before = await settings();
    const r = await cli(['config', 'set', ...args], { env: _name === 'a bad boolean variable' ? { FM_EXEC: 'perhaps' } : {} });
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.startsWith('fm: ')).toBe(true);
    expect(r.stdout).toBe('');
    expect(await settings()).toEqual(before);
  });
});

describe('fm config cat', () => {
  it('prints the settings aligned, and as JSON equal to the API', async () => {
    expect((await cli(['config', 'set', '--signup', '--exec', '--tus-chunk-size', '1.5GiB'])).code).toBe(0);
    const human = await cli(['config', 'cat']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^signup:\s+yes$/m);
    expect(human.stdout).toMatch(/^tus chunk size:\s+1\.5GB$/m);
    expect(human.stdout).toMatch(/^exec:\s+on$/m);
    const values = human.stdout
      .split('\n\n')[0]
      .split('\n')
      .map((l) => /^[^:]+:\s+/.exec(l)![0].length);
    expect(new Set(values).size).toBe(1);
    const json = JSON.parse((await cli(['config', 'cat', '--json'])).stdout);
    const { auth, authMethod, ...rest } = json;
    const api = await settings();
    expect({ ...api, auth: undefined }).toEqual({ ...rest, authMethod, auth: undefined });
  });
});

describe('fm config init', () => {
  it('creates a new database that fm serve starts on, with the settings given', async () => {
    const home = tempDir();
    const db = path.join(home, 'fm.db');
    const r = await runFm(['config', 'init', '--database', db, '--branding-name', 'Fresh', '--create-user-dir', '--user-home-base-path', '/homes']);
    expect(r).toEqual({ code: 0, stdout: `initialised ${db}\n`, stderr: '' });
    const again = await runFm(['config', 'init', '--database', db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already initialised/);
    const server = await startFm({ home });
    try {
      const s = await (await adminClient(server)).json<Record<string, any>>('/api/settings');
      expect(s).toMatchObject({ branding: { name: 'Fresh' }, createUserDir: true, userHomeBasePath: '/homes', signup: false });
    } finally {
      await server.stop();
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('leaves no database behind when it fails', async () => {
    const home = tempDir();
    const db = path.join(home, 'fm.db');
    const r = await runFm(['config', 'init', '--database', db, '--auth-method', 'hook']);
    expect(r.code).toBe(2);
    expect(fs.readdirSync(home)).toEqual([]);
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('other commands refuse a database that does not exist', async () => {
    const r = await runFm(['users', 'ls', '--database', '/nonexistent/fm.db']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('fm: database /nonexistent/fm.db does not exist (create it with "fm config init", or start "fm serve" once)\n');
  });
});
