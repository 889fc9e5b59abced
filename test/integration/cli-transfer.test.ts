/**
 * Moving instances: `config export|import` and `users export|import`, between fm databases and
 * from filebrowser's export format; imports are all or nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, Client, PROJECT_ROOT, startFm, tempDir, type FmServer } from '../helpers/server.ts';

vi.setConfig({ testTimeout: 120_000 });

const FIXTURES = path.join(PROJECT_ROOT, 'test/fixtures');
let work: string;

function fmOn(db: string, args: string[], input?: string) {
  return runFm(['--database', db, ...args], { input });
}

async function ok(db: string, args: string[], input?: string): Promise<string> {
  const r = await fmOn(db, args, input);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

beforeAll(() => {
  work = tempDir('fm-transfer-');
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('export → import into a fresh database', () => {
  let source: FmServer;
  beforeAll(async () => {
    source = await startFm({ home: path.join(work, 'source') });
    const db = source.dbFile;
    await ok(db, [
      'config',
      'set',
      '--signup',
      '--create-user-dir',
      '--branding-name',
      'Source',
      '--tus-chunk-size',
      '3MB',
      '--exec',
      '--auth-header',
      'X-User',
      '--recaptcha-key',
      'k',
    ]);
    await ok(db, ['rules', 'add', '/private']);
    await ok(db, ['cmds', 'add', 'after_upload', '/bin/true']);
    await ok(db, ['users', 'add', 'alice', 'alice-long-password', '--scope', '/alice', '--locale', 'ja', '--no-perm-share', '--commands', 'git,ls', '--force']);
    await ok(db, ['rules', 'add', '--regex', '\\.tmp$', '--user', 'alice']);
  });
  afterAll(async () => {
    await source.stop();
  });

  it('gives identical settings and users, and the users log in with their passwords', async () => {
    const src = source.dbFile;
    const cfg = path.join(work, 'config.json');
    const users = path.join(work, 'users.json');
    await ok(src, ['config', 'export', cfg]);
    await ok(src, ['users', 'export', users]);
    expect(fs.statSync(users).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(users, 'utf8'))[0].password).toMatch(/^\$2[aby]\$10\$/);

    const fresh = path.join(work, 'fresh', 'fm.db');
    await ok(fresh, ['config', 'import', cfg]);
    // git can launch other programs: the import needs the same --force the source needed.
    const refused = await fmOn(fresh, ['users', 'import', users]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/"git" can launch other programs/);
    await ok(fresh, ['users', 'import', users, '--force']);

    expect(JSON.parse(await ok(fresh, ['config', 'cat', '--json']))).toEqual(JSON.parse(await ok(src, ['config', 'cat', '--json'])));
    expect(JSON.parse(await ok(fresh, ['users', 'ls', '--json']))).toEqual(JSON.parse(await ok(src, ['users', 'ls', '--json'])));
    await ok(fresh, ['users', 'export', path.join(work, 'users2.json')]);
    expect(fs.readFileSync(path.join(work, 'users2.json'), 'utf8')).toBe(fs.readFileSync(users, 'utf8'));

    const copy = await startFm({ home: path.dirname(fresh) });
    try {
      const alice = new Client(copy.url);
      await alice.login('alice', 'alice-long-password');
      const me = await alice.json<Record<string, any>>('/api/users/2');
      expect(me).toMatchObject({ username: 'alice', locale: 'ja', commands: ['git', 'ls'], perm: { share: false } });
      expect(copy.output()).not.toContain('password:'); // the imported admin exists, none is created
    } finally {
      await copy.stop();
    }
  });

  it('works through standard input and output, and as YAML', async () => {
    const src = source.dbFile;
    const exported = await ok(src, ['config', 'export', '-']);
    expect(JSON.parse(exported)).toHaveProperty('settings.branding.name', 'Source');
    const piped = path.join(work, 'piped', 'fm.db');
    await ok(piped, ['config', 'import', '-'], exported);
    const yaml = path.join(work, 'users.yaml');
    await ok(src, ['users', 'export', yaml]);
    expect(fs.readFileSync(yaml, 'utf8')).toMatch(/^- id: 1\n/);
    await ok(piped, ['users', 'import', yaml, '--force']);
    expect(JSON.parse(await ok(piped, ['users', 'ls', '--json']))).toEqual(JSON.parse(await ok(src, ['users', 'ls', '--json'])));
  });
});

describe('import from filebrowser', () => {
  it('moves a filebrowser instance: settings, users, passwords, rules', async () => {
    const home = path.join(work, 'from-fb');
    const db = path.join(home, 'fm.db');
    const cfg = await fmOn(db, ['config', 'import', path.join(FIXTURES, 'filebrowser-config.json')]);
    expect(cfg.code).toBe(0);
    expect(cfg.stderr).toMatch(/^fm: warning: not imported .*server\.root.*server\.port/);
    const users = await fmOn(db, ['users', 'import', path.join(FIXTURES, 'filebrowser-users.json')]);
    expect(users).toEqual({ code: 0, stdout: 'imported 2 users; 2 users in total\n', stderr: '' });

    const server = await startFm({ home });
    try {
      const admin = new Client(server.url);
      await admin.login('admin', 'filebrowser-admin-pass');
      const s = await admin.json<Record<string, any>>('/api/settings');
      expect(s).toMatchObject({
        signup: true,
        createUserDir: true,
        userHomeBasePath: '/home',
        minimumPasswordLength: 14,
        branding: { name: 'Old Files', theme: 'dark' },
        tus: { chunkSize: 5 * 1024 * 1024, retryCount: 3 },
        enableThumbnails: false,
        rules: [
          { path: '/secret', regex: false },
          { regex: true, regexp: { raw: '\\.bak$' } },
        ],
      });
      const alice = new Client(server.url);
      await alice.login('alice', 'filebrowser-alice-pass');
      expect(await alice.json<Record<string, any>>('/api/users/3')).toMatchObject({
        id: 3,
        username: 'alice',
        locale: 'zhCN',
        lockPassword: true,
        rules: [{ path: '/private', regexp: { raw: '' } }],
        perm: { admin: false, modify: false, download: true },
      });
      // New users get the next id after the imported ones.
      expect((await fmOn(server.dbFile, ['users', 'add', 'newcomer', 'newcomer-long-password'])).stdout).toMatch(/\(id 4\)/);
    } finally {
      await server.stop();
    }
  });
});

describe('imports are all or nothing', () => {
  let fm: FmServer;
  let before: { users: string; config: string };
  beforeAll(async () => {
    fm = await startFm({ home: path.join(work, 'target') });
    await ok(fm.dbFile, ['users', 'add', 'keeper', 'keeper-long-password']);
    before = { users: await ok(fm.dbFile, ['users', 'export', '-']), config: await ok(fm.dbFile, ['config', 'export', '-']) };
  });
  afterAll(async () => {
    await fm.stop();
  });

  const write = (name: string, content: unknown) => {
    const file = path.join(work, name);
    fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const hash = '$2a$10$694HG24onzt33sNblM3XM.M.cfmkUxmtXqFD8twzLCVTJUQ1/0imW';

  it.each<[string, string[], unknown, number, RegExp]>([
    ['malformed JSON', ['users', 'import'], '[{"username": ', 1, /is not valid JSON/],
    ['not a list', ['users', 'import'], { username: 'x' }, 1, /expected a JSON array of users/],
    ['a plain-text password', ['users', 'import'], [{ username: 'x', password: 'secret-secret' }], 1, /user #1 \("x"\): the password is not a bcrypt hash/],
    [
      'a bad user after good ones',
      ['users', 'import'],
      [
        { username: 'ok1', password: hash },
        { username: 'bad', password: hash, perm: { god: true } },
      ],
      1,
      /user #2 \("bad"\): unknown permission "god"/,
    ],
    ['a taken id without --overwrite', ['users', 'import'], [{ id: 1, username: 'other', password: hash }], 2, /user id 1 is already taken by "admin"/],
    ['a taken username', ['users', 'import'], [{ id: 50, username: 'Keeper', password: hash }], 1, /username "Keeper" would belong to two users/],
    [
      'two users with one name',
      ['users', 'import'],
      [
        { username: 'twin', password: hash },
        { username: 'TWIN', password: hash },
      ],
      1,
      /would belong to two users/,
    ],
    ['no admin left', ['users', 'import', '--replace'], [{ username: 'solo', password: hash }], 1, /^fm: the instance would be left without an admin\n$/],
    [
      'an invalid rule',
      ['users', 'import'],
      [{ username: 'r', password: hash, rules: [{ regex: true, regexp: { raw: '[' } }] }],
      1,
      /invalid regular expression/,
    ],
    ['malformed settings', ['config', 'import'], '{"settings": ', 1, /is not valid JSON/],
    ['a wrong type in settings', ['config', 'import'], { settings: { signup: 'yes' } }, 1, /invalid settings: signup/],
    ['an unknown auth method', ['config', 'import'], { settings: { authMethod: 'ldap' } }, 1, /invalid settings: authMethod/],
    ['an invalid global rule', ['config', 'import'], { settings: { rules: [{ regex: true, regexp: { raw: '(' } }] } }, 1, /invalid regular expression/],
    ['a missing file', ['config', 'import'], undefined, 1, /cannot read .*: ENOENT/],
  ])('refuses %s with a clear message and leaves the database as it was', async (name, command, content, code, message) => {
    const file = content === undefined ? path.join(work, 'missing.json') : write(`${name.replace(/\W+/g, '-')}.json`, content);
    const r = await fmOn(fm.dbFile, [...command, file]);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(code);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(await ok(fm.dbFile, ['users', 'export', '-'])).toBe(before.users);
    expect(await ok(fm.dbFile, ['config', 'export', '-'])).toBe(before.config);
  });

  it('--replace swaps every user at once; the running server sees the new set and old sessions end', async () => {
    const admin = await adminClient(fm);
    const file = write('replacement.json', JSON.parse(fs.readFileSync(path.join(FIXTURES, 'filebrowser-users.json'), 'utf8')));
    expect((await fmOn(fm.dbFile, ['users', 'import', file, '--replace'])).code).toBe(0);
    expect((await admin.fetch('/api/users')).status).toBe(401);
    const fbAdmin = new Client(fm.url);
    await fbAdmin.login('admin', 'filebrowser-admin-pass');
    expect((await fbAdmin.json<Array<{ username: string }>>('/api/users')).map((u) => u.username)).toEqual(['admin', 'alice']);
  });
});
