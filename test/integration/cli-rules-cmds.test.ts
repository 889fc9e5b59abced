/**
 * `fm rules ...` and `fm cmds ...` against the database of a running server. The files API is
 * not on this branch yet, so the effect is checked through /api/settings and /api/users/{id},
 * which the gate reads per request; "a rule hides a file" belongs with the files API tests.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { adminClient, Client, createUser, startFm, type FmServer } from '../helpers/server.ts';

// Each test runs fm as a subprocess several times; on a loaded machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

let fm: FmServer;
let admin: Client;
let bobId: number;

function cli(args: string[]) {
  return runFm(['--database', fm.dbFile, ...args]);
}

async function settings(): Promise<Record<string, any>> {
  return admin.json('/api/settings');
}

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  bobId = (await createUser(admin, fm, 'bob')).id;
});
afterAll(async () => {
  await fm.stop();
});

describe('fm rules', () => {
  it('adds global rules that the running server applies', async () => {
    expect(await cli(['rules', 'add', '/private'])).toEqual({ code: 0, stdout: 'added global rule 0: deny /private\n', stderr: '' });
    expect((await cli(['rules', 'add', 'private//shared/', '--allow'])).stdout).toBe('added global rule 1: allow /private/shared\n');
    expect((await cli(['rules', 'add', '--regex', '\\.(bak|tmp)$'])).code).toBe(0);
    expect((await settings()).rules).toEqual([
      { regex: false, allow: false, path: '/private', regexp: { raw: '' } },
      { regex: false, allow: true, path: '/private/shared', regexp: { raw: '' } },
      { regex: true, allow: false, path: '', regexp: { raw: '\\.(bak|tmp)$' } },
    ]);
  });

  it("adds a user's rules, visible in the user's record at once", async () => {
    const r = await cli(['rules', 'add', '/finance', '--user', 'bob']);
    expect(r).toEqual({ code: 0, stdout: 'added user "bob" rule 0: deny /finance\n', stderr: '' });
    expect((await cli(['rules', 'add', '^/tmp', '--regex', '--allow', '--user', String(bobId)])).code).toBe(0);
    const bob = await admin.json<Record<string, any>>(`/api/users/${bobId}`);
    expect(bob.rules).toEqual([
      { regex: false, allow: false, path: '/finance', regexp: { raw: '' } },
      { regex: true, allow: true, path: '', regexp: { raw: '^/tmp' } },
    ]);
    // bob's own view of himself shows them too (he is re-read from the database per request).
    const bobClient = new Client(fm.url);
    await bobClient.login('bob', 'a-long-test-password-1');
    expect((await bobClient.json<Record<string, any>>(`/api/users/${bobId}`)).rules).toHaveLength(2);
  });

  it('lists rules as a table and as JSON', async () => {
    const table = await cli(['rules', 'ls']);
    expect(table.stdout.split('\n')).toEqual([
      'INDEX  ACTION  TYPE   RULE',
      '0      deny    path   /private',
      '1      allow   path   /private/shared',
      '2      deny    regex  \\.(bak|tmp)$',
      '',
    ]);
    expect(JSON.parse((await cli(['rules', 'ls', '--user', 'bob', '--json'])).stdout)).toHaveLength(2);
    expect((await cli(['rules', 'ls', '--user', 'admin'])).stdout).toBe('no rules\n');
  });

  it('removes a rule or a range of rules by index', async () => {
    expect((await cli(['rules', 'rm', '1'])).stdout).toBe('removed 1 global rule\n');
    expect((await settings()).rules.map((r: any) => r.path || r.regexp.raw)).toEqual(['/private', '\\.(bak|tmp)$']);
    expect((await cli(['rules', 'rm', '0', '1', '--user', 'bob', '--yes'])).code).toBe(0);
    expect((await admin.json<Record<string, any>>(`/api/users/${bobId}`)).rules).toEqual([]);
  });

  it.each<[string, string[], number, RegExp]>([
    [
      'an invalid regular expression',
      ['add', '--regex', '(unclosed'],
      1,
      /^fm: invalid regular expression in the rule: \(unclosed \(missing closing \): `\(unclosed`\)\n$/,
    ],
    [
      'a lookahead (RE2 has none)',
      ['add', '--regex', 'a(?=b)'],
      1,
      /^fm: invalid regular expression in the rule: a\(\?=b\) \(invalid or unsupported Perl syntax: `\(\?=`\)\n$/,
    ],
    ['an empty regular expression', ['add', '--regex', ''], 2, /the rule is empty/],
    ['a path above the scope', ['add', '/a/../../etc'], 1, /must not contain "\.\."/],
    ['an unknown user', ['add', '/x', '--user', 'nobody'], 1, /^fm: user "nobody" not found\n$/],
    ['an index out of range', ['rm', '9'], 2, /there is no global rule 9 \(indexes 0 to 1\)/],
    ['a reversed range', ['rm', '1', '0'], 2, /before the start index/],
    ['a non-numeric index', ['rm', 'first'], 2, /expected an index/],
    ['a user without rules', ['rm', '0', '--user', 'bob'], 2, /there are no rules/],
  ])('refuses %s and changes nothing', async (_name, args, code, message) => {
    const before = [await settings(), await admin.json(`/api/users/${bobId}`)];
    const r = await cli(['rules', ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect([await settings(), await admin.json(`/api/users/${bobId}`)]).toEqual(before);
  });
});

describe('fm cmds', () => {
  it('adds event commands that the server settings show', async () => {
    expect(await cli(['cmds', 'add', 'after_upload', '/bin/echo', 'scanned'])).toEqual({
      code: 0,
      stdout: 'added after_upload command 0: /bin/echo scanned\n',
      stderr: '',
    });
    expect((await cli(['cmds', 'add', 'before_delete', '--', '/bin/true', '--quiet'])).code).toBe(0);
    const s = await settings();
    expect(s.commands.after_upload).toEqual(['/bin/echo scanned']);
    expect(s.commands.before_delete).toEqual(['/bin/true --quiet']);
  });

  it('lists event commands', async () => {
    const table = await cli(['cmds', 'ls']);
    expect(table.stdout).toMatch(/^EVENT\s+INDEX\s+COMMAND\n/);
    expect(table.stdout).toMatch(/^before_delete\s+0\s+\/bin\/true --quiet$/m);
    expect(JSON.parse((await cli(['cmds', 'ls', '--event', 'after_upload', '--json'])).stdout)).toEqual(['/bin/echo scanned']);
  });

  it('removes an event command', async () => {
    expect((await cli(['cmds', 'rm', 'after_upload', '0'])).stdout).toBe('removed 1 after_upload command\n');
    expect((await settings()).commands.after_upload).toEqual([]);
  });

  it.each<[string, string[], RegExp]>([
    ['an unknown event', ['add', 'after_party', 'echo'], /Allowed choices are before_save/],
    ['an option inside the command without --', ['add', 'after_save', 'rsync', '-a'], /unknown option '-a'/],
    ['an index out of range', ['rm', 'after_upload', '0'], /there is no after_upload command 0 \(there are none\)/],
  ])('refuses %s with a usage error and changes nothing', async (_name, args, message) => {
    const before = await settings();
    const r = await cli(['cmds', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(await settings()).toEqual(before);
  });
});
