/**
 * The CLI basics of issue 2, run as a subprocess: `fm users add` prepares an instance
 * before it starts, `fm version`, `fm hash`, exit codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { Client, startFm, tempDir } from '../helpers/server.ts';
import { decodeToken } from '../helpers/http-raw.ts';

const home = tempDir('fm-cli-');
const db = path.join(home, 'fm.db');
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

describe('fm users add', () => {
  it('adds an admin with scope and locale, printing JSON without secrets', async () => {
    const r = await runFm(['users', 'add', 'bob', 'bob-password-123', '--admin', '--scope', '/x', '--locale', 'de', '--json', '--database', db]);
    expect(r.code, r.stderr).toBe(0);
    const user = JSON.parse(r.stdout);
    expect(user).toMatchObject({ id: 1, username: 'bob', scope: '/x', locale: 'de', perm: { admin: true, execute: true } });
    expect(r.stdout).not.toMatch(/\$2[aby]\$/);
    expect(user).not.toHaveProperty('password');
  });

  it('prints one human line without --json', async () => {
    const r = await runFm(['users', 'add', 'carla', 'carla-password-12', '--database', db]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toMatch(/carla/);
  });

  it('refuses a duplicate username (any case): exit 1, one line on stderr', async () => {
    const r = await runFm(['users', 'add', 'BOB', 'another-password-1', '--database', db]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/already (taken|exists)/);
    expect(r.stdout).toBe('');
  });

  it('applies the password policy: exit 1 with the reason', async () => {
    const r = await runFm(['users', 'add', 'weak', 'short', '--database', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/too short/);
  });

  it('reads the database from FM_DATABASE', async () => {
    const r = await runFm(['users', 'add', 'dora', 'dora-password-123', '--json'], { env: { FM_DATABASE: db } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).username).toBe('dora');
  });

  it('prepares an instance: the server starts without creating another admin, and bob logs in', async () => {
    const fm = await startFm({ home });
    try {
      expect(fm.output()).not.toMatch(/password:/);
      const c = new Client(fm.url);
      await c.login('bob', 'bob-password-123');
      const claims = decodeToken(c.token).user;
      expect(claims).toMatchObject({ username: 'bob', locale: 'de', perm: { admin: true } });
      const me = await c.json<{ scope: string }>(`/api/users/${claims.id}`);
      expect(me.scope).toBe('/x');
      const users = await c.json<Array<{ username: string }>>('/api/users');
      expect(users.map((u) => u.username)).toEqual(['bob', 'carla', 'dora']);
    } finally {
      await fm.stop();
    }
  });
});

describe('fm version and fm hash', () => {
  it('prints the version', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
    const r = await runFm(['version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`fm v${pkg.version}`);
    const j = await runFm(['version', '--json']);
    expect(JSON.parse(j.stdout)).toEqual({ version: pkg.version });
    const flag = await runFm(['--version']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain(pkg.version);
  });

  it('prints a bcrypt hash (cost 10) that verifies', async () => {
    const r = await runFm(['hash', 'correct horse battery staple']);
    expect(r.code).toBe(0);
    const hash = r.stdout.trim();
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync('correct horse battery staple', hash)).toBe(true);
    expect(bcrypt.compareSync('wrong', hash)).toBe(false);
    const j = await runFm(['hash', 'x', '--json']);
    expect(bcrypt.compareSync('x', JSON.parse(j.stdout).hash)).toBe(true);
  });
});

describe('exit codes', () => {
  it('exits 2 on an unknown command, an unknown option and a missing argument', async () => {
    expect((await runFm(['frobnicate'])).code).toBe(2);
    expect((await runFm(['version', '--frob'])).code).toBe(2);
    expect((await runFm(['users', 'add', 'only-a-name', '--database', db])).code).toBe(2);
    expect((await runFm(['hash'])).code).toBe(2);
  });

  it('exits 0 on --help', async () => {
    const r = await runFm(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/serve/);
  });
});
