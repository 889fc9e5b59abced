/**
 * `fm users ...` as a subprocess against the database of a running server: every change is
 * checked through the server's HTTP API, without restarting it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, Client, startFm, type FmServer } from '../helpers/server.ts';

// Each test runs fm as a subprocess several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

let fm: FmServer;
let admin: Client;

function cli(args: string[], input?: string) {
  return runFm(['--database', fm.dbFile, ...args], { input });
}

async function canLogin(username: string, password: string): Promise<boolean> {
  const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username, password }) });
  await res.text();
  return res.status === 200;
}

async function apiUsers(): Promise<Array<Record<string, any>>> {
  return admin.json('/api/users');
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

describe('fm users add', () => {
  it('adds a user who can log in to the running server at once', async () => {
    const r = await cli(['users', 'add', 'alice', 'alice-long-password', '--scope', '/alice', '--no-perm-delete', '--locale', 'de']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^added user "alice" \(id \d+\)\n$/);
    expect(await canLogin('alice', 'alice-long-password')).toBe(true);
    const alice = (await apiUsers()).find((u) => u.username === 'alice')!;
    expect(alice).toMatchObject({ scope: '/alice', locale: 'de', perm: { admin: false, delete: false, create: true, download: true } });
  });

  it('takes the password from standard input or as a bcrypt hash', async () => {
    expect((await cli(['users', 'add', 'bob', '--password-stdin'], 'bob-long-password\n')).code).toBe(0);
    expect(await canLogin('bob', 'bob-long-password')).toBe(true);
    const hash = (await runFm(['hash', 'carol-long-password'])).stdout.trim();
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect((await cli(['users', 'add', 'carol', '--password-hash', hash, '--json'])).code).toBe(0);
    expect(await canLogin('carol', 'carol-long-password')).toBe(true);
  });

  it('prints the new user as JSON, without the password hash', async () => {
    const r = await cli(['users', 'add', 'dave', 'dave-long-password', '--admin', '--json']);
    expect(r.code).toBe(0);
    const user = JSON.parse(r.stdout);
    expect(user).toMatchObject({ username: 'dave', perm: { admin: true, execute: true, delete: true } });
    expect(user).not.toHaveProperty('password');
  });

  it('without a password and without a terminal: usage error, never a hang', async () => {
    const r = await cli(['users', 'add', 'erin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('fm: "erin": no password given and no terminal to ask on (pass it as an argument, or use --password-stdin)\n');
    expect((await apiUsers()).map((u) => u.username)).not.toContain('erin');
  });
});

describe('fm users add refuses bad input with one line, and changes nothing', () => {
  let before: Array<Record<string, any>>;
  beforeAll(async () => {
    before = await apiUsers();
  });

  it.each<[string, string[], number, RegExp]>([
    ['a taken name', ['alice', 'another-long-password'], 1, /^fm: user "alice" already exists\n$/],
    ['a taken name in another case', ['ALICE', 'another-long-password'], 1, /^fm: user "ALICE" already exists\n$/],
    ['a short password', ['frank', 'short'], 1, /^fm: password is too short: at least 12 characters are required\n$/],
    ['an unknown permission', ['frank', 'frank-long-password', '--perm-root'], 2, /^fm: unknown option '--perm-root'/],
    ['an unknown view mode', ['frank', 'frank-long-password', '--view-mode', 'grid'], 2, /argument 'grid' is invalid/],
    ['an unknown locale', ['frank', 'frank-long-password', '--locale', 'xx'], 2, /unknown locale "xx"/],
    ['share without download', ['frank', 'frank-long-password', '--no-perm-download'], 1, /share permission requires download permission/],
    ['a hash that is not bcrypt', ['frank', '--password-hash', 'not-a-hash'], 1, /not a bcrypt hash/],
    ['a slash in the name', ['fr/ank', 'frank-long-password'], 1, /slash/],
    ['a scope above the root', ['frank', 'frank-long-password', '--scope', '../etc'], 1, /scope must not contain "\.\."/],
    ['two passwords', ['frank', 'frank-long-password', '--password-stdin'], 2, /give the password one way only/],
  ])('%s', async (_name, args, code, message) => {
    const r = await cli(['users', 'add', ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(r.stdout).toBe('');
  });

  it('left the users as they were', async () => {
    expect(await apiUsers()).toEqual(before);
  });
});

describe('fm users ls and find', () => {
  it('lists users as an aligned table and as JSON', async () => {
    const table = await cli(['users', 'ls']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+USERNAME\s+SCOPE\s+LOCALE\s+ADMIN\s+LOCKED\s+PERMISSIONS$/);
    const col = lines[0].indexOf('USERNAME');
    expect(lines.slice(1).map((l) => l.slice(col).split(/\s+/)[0])).toEqual((await apiUsers()).map((u) => u.username));
    const json = JSON.parse((await cli(['users', 'ls', '--json'])).stdout);
    expect(json.map((u: any) => u.username)).toEqual((await apiUsers()).map((u) => u.username));
    expect(JSON.stringify(json)).not.toMatch(/\$2[aby]\$/);
  });

  it('finds a user by name or id; an unknown one is a one-line error', async () => {
    const alice = (await apiUsers()).find((u) => u.username === 'alice')!;
    const byName = await cli(['users', 'find', 'alice']);
    expect(byName.stdout).toMatch(/^id:\s+\d+$/m);
    expect(byName.stdout).toMatch(/^scope:\s+\/alice$/m);
    expect(JSON.parse((await cli(['users', 'find', String(alice.id), '--json'])).stdout)).toMatchObject({ username: 'alice' });
    const missing = await cli(['users', 'find', 'nobody']);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'fm: user "nobody" not found\n' });
  });
});

describe('fm users update', () => {
  it('changes only the options given, visible to the running server', async () => {
    const before = (await apiUsers()).find((u) => u.username === 'alice')!;
    const r = await cli(['users', 'update', 'alice', '--perm-delete', '--no-perm-share', '--view-mode', 'mosaic', '--sorting-by', 'size', '--no-sorting-asc']);
    expect(r).toMatchObject({ code: 0, stdout: `updated user "alice" (id ${before.id})\n` });
    const after = await admin.json<Record<string, any>>(`/api/users/${before.id}`);
    expect(after).toEqual({
      ...before,
      viewMode: 'mosaic',
      sorting: { by: 'size', asc: false },
      perm: { ...before.perm, delete: true, share: false },
    });
  });

  it("sets a new password: the old one stops working and the user's sessions end", async () => {
    const bob = new Client(fm.url);
    await bob.login('bob', 'bob-long-password');
    expect((await bob.fetch('/api/renew', { method: 'POST' })).status).toBe(200);
    expect((await cli(['users', 'update', 'bob', '--password', 'bob-new-long-password'])).code).toBe(0);
    expect(await canLogin('bob', 'bob-long-password')).toBe(false);
    expect(await canLogin('bob', 'bob-new-long-password')).toBe(true);
    expect((await bob.fetch('/api/renew', { method: 'POST' })).status).toBe(401);
  });

  it('renames, locks the password and grants admin', async () => {
    expect((await cli(['users', 'update', 'carol', '-u', 'caroline', '--lock-password'])).code).toBe(0);
    expect(await canLogin('caroline', 'carol-long-password')).toBe(true);
    expect((await apiUsers()).find((u) => u.username === 'caroline')).toMatchObject({ lockPassword: true });
  });
});

describe('fm users update refuses bad updates and changes nothing', () => {
  let before: Array<Record<string, any>>;
  beforeAll(async () => {
    // dave is an admin too: leave admin as the last one.
    expect((await cli(['users', 'update', 'dave', '--no-admin'])).code).toBe(0);
    before = await apiUsers();
  });

  it.each<[string, string[], number, RegExp]>([
    ['an unknown user', ['nobody', '--admin'], 1, /^fm: user "nobody" not found\n$/],
    ['no option', ['alice'], 2, /nothing to update/],
    ['a taken name', ['alice', '-u', 'bob'], 1, /username "bob" is already taken/],
    ['a short password', ['alice', '--password', 'short'], 1, /too short/],
    ['a password to ask without a terminal', ['alice', '--password'], 2, /no terminal/],
    ['an unknown permission', ['alice', '--perm-everything'], 2, /unknown option/],
    ['demoting the last admin', ['admin', '--no-admin'], 1, /last admin cannot lose admin rights/],
  ])('%s', async (_name, args, code, message) => {
    const r = await cli(['users', 'update', ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('left the users as they were', async () => {
    expect(await apiUsers()).toEqual(before);
  });
});

describe('fm users rm', () => {
  it('deletes a user without asking when there is no terminal; they can no longer log in', async () => {
    const r = await cli(['users', 'rm', 'dave']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^deleted user "dave"/);
    expect(await canLogin('dave', 'dave-long-password')).toBe(false);
    expect((await apiUsers()).map((u) => u.username)).not.toContain('dave');
  });

  it('never deletes the last admin, and reports unknown users', async () => {
    const before = await apiUsers();
    const last = await cli(['users', 'rm', 'admin', '--yes']);
    expect(last).toEqual({ code: 1, stdout: '', stderr: 'fm: the last admin cannot be deleted\n' });
    expect(await cli(['users', 'rm', 'nobody', '--yes'])).toEqual({ code: 1, stdout: '', stderr: 'fm: user "nobody" not found\n' });
    expect(await apiUsers()).toEqual(before);
  });
});
