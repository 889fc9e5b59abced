/**
 * The command runner (WebSocket /api/command/{path}) against a real `fm serve`: streaming and
 * the exit frame, and the EXEC and AUTH advisory classes (allowlist bypasses with and without
 * a shell, launchers in allowlists, scope and rules for the working folder, cross-site
 * WebSockets, process lifetime, limits, the scrubbed environment).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alive } from '../helpers/processes.ts';
import type WebSocket from 'ws';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { expectRefused, putSettings, runCommand, setSettings, sleepPids, waitFor } from './exec-helpers.ts';

/** Variables in the server's environment that commands must not see. */
const SERVER_SECRETS = { FM_SECRET_FOR_TEST: 'do-not-leak', AWS_SECRET_ACCESS_KEY: 'nope' };
const ALLOWED = ['echo', 'printf', 'ls', 'cat', 'sleep', 'printenv', 'grep', 'true', 'false', 'pwd'];

describe('command runner', () => {
  let fm: FmServer;
  let admin: Client;
  let alice: Client;
  let aliceId: number;
  let bob: Client;
  let aliceHome: string;

  beforeAll(async () => {
    // The root lives outside the database's folder (fm never serves its own data folder).
    // The server runs in this process: its environment is this file's own process's.
    Object.assign(process.env, SERVER_SECRETS);
    fm = await startFm({ root: tempDir('fm-exec-root-') });
    admin = await adminClient(fm);
    aliceHome = path.join(fm.root, 'alice');
    fs.mkdirSync(path.join(aliceHome, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(aliceHome, 'secret'), { recursive: true });
    fs.writeFileSync(path.join(aliceHome, 'docs', 'a.txt'), 'alpha\nbeta\n');
    fs.writeFileSync(path.join(aliceHome, 'secret', 'key.txt'), 'hidden\n');
    fs.writeFileSync(path.join(fm.root, 'outside.txt'), 'not yours\n');
    fs.symlinkSync(fm.home, path.join(aliceHome, 'escape'));
    const perm = { execute: true, create: true, modify: true, rename: true, delete: true, download: true, share: false, admin: false };
    const a = await createUser(admin, fm, 'alice', {
      scope: '/alice',
      perm,
      commands: ALLOWED,
      rules: [{ regex: false, allow: false, path: '/secret' }],
    });
    alice = a.client;
    aliceId = a.id;
    bob = (await createUser(admin, fm, 'bob', { scope: '/alice', perm: { ...perm, execute: false }, commands: ALLOWED })).client;
  });

  afterAll(async () => {
    for (const name of Object.keys(SERVER_SECRETS)) delete process.env[name];
    await fm?.stop();
    if (fm) fs.rmSync(fm.root, { recursive: true, force: true });
  });

  it('EXEC: refuses every command while exec is disabled (the default)', async () => {
    const r = await runCommand(fm, '/api/command/', 'echo hi', { token: alice.token });
    expectRefused(r, /disabled/);
  });

  describe('with exec enabled and no shell', () => {
    beforeAll(async () => {
      await setSettings(admin, { enableExec: true, shell: [] });
    });

    it('streams the output of an allowed command line by line, then the exit frame, then closes 1000', async () => {
      const r = await runCommand(fm, '/api/command/docs', 'cat a.txt', { token: alice.token });
      expect(r.lines).toEqual(['alpha', 'beta']);
      expect(r.final).toEqual({ type: 'exit', code: 0 });
      expect(r.closeCode).toBe(1000);
    });

    it('reports a failing exit code and sends stderr lines too', async () => {
      const r = await runCommand(fm, '/api/command/docs', 'ls no-such-file', { token: alice.token });
      expect(r.final?.type).toBe('exit');
      expect(r.final?.code).toBe(2);
      expect(r.lines.join('\n')).toMatch(/no-such-file/);
      expect(r.closeCode).toBe(1000);
    });

    it('honours quotes when splitting the line into argv', async () => {
      const r = await runCommand(fm, '/api/command/', `printf '%s|' "a b" 'c  d' e\\ f`, { token: alice.token });
      expect(r.lines).toEqual(['a b|c  d|e f|']);
    });

    it('passes ANSI colour codes through', async () => {
      const r = await runCommand(fm, '/api/command/', "printf '\\033[31mred\\033[0m\\n'", { token: alice.token });
      expect(r.lines).toEqual(['\u001b[31mred\u001b[0m']);
    });

    it('accepts the auth cookie as well as X-Auth', async () => {
      const r = await runCommand(fm, '/api/command/', 'echo cookie', { cookie: alice.token });
      expect(r.lines).toEqual(['cookie']);
    });

    it('EXEC: refuses a program that is not in the allowlist', async () => {
      expectRefused(await runCommand(fm, '/api/command/', 'id', { token: alice.token }), /"id" is not in your allowed commands/);
    });

    it('EXEC: admins are bound by their own allowlist too', async () => {
      expectRefused(await runCommand(fm, '/api/command/', 'echo hi', { token: admin.token }), /not in your allowed commands/);
    });

    const bypasses: Array<[string, RegExp]> = [
      ['ls; id', /no shell is configured/],
      ['ls && id', /no shell is configured/],
      ['ls | sh', /no shell is configured/],
      ['$(id)', /command substitution/],
      ['echo $(id)', /command substitution/],
      ['`id`', /backticks/],
      ['echo "`id`"', /backticks/],
      ['ls > /etc/x', /no shell is configured/],
      ['env id', /"env" is not in your allowed commands/],
      ['x=id; $x', /variables/],
      ['${PATH}', /parameter expansion/],
      ['cat <(id)', /process substitution/],
      ['echo $((1+1))', /arithmetic/],
      ['f() { id; }', /function definitions/],
      ['(id)', /subshells/],
      ['echo hi &', /background/],
      ['PATH=. ls', /assignments/],
      ['/usr/bin/id', /not in your allowed commands/],
      ['echo hi\nid', /single line/],
    ];
    for (const [line, why] of bypasses) {
      it(`EXEC: refuses ${JSON.stringify(line)} without a shell`, async () => {
        expectRefused(await runCommand(fm, '/api/command/', line, { token: alice.token }), why);
      });
    }

    it("EXEC: an allowlisted name never resolves to a file in the user's folder", async () => {
      // A file named like an allowed program in the working folder is not what runs.
      fs.writeFileSync(path.join(aliceHome, 'pwd'), '#!/bin/sh\necho pwned\n', { mode: 0o755 });
      try {
        const r = await runCommand(fm, '/api/command/', 'pwd', { token: alice.token });
        expect(r.lines).toEqual([aliceHome]);
      } finally {
        fs.rmSync(path.join(aliceHome, 'pwd'));
      }
    });

    it("EXEC: scrubs the environment (fixed PATH, HOME the sandbox's own, no server variables)", async () => {
      const r = await runCommand(fm, '/api/command/docs', 'printenv', { token: alice.token });
      expect(r.final).toEqual({ type: 'exit', code: 0 });
      const env = Object.fromEntries(r.lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
      expect(env.PATH).toBe('/usr/local/bin:/usr/bin:/bin');
      expect(env.HOME).toBe('/tmp/home');
      expect(env.PWD).toBe(path.join(aliceHome, 'docs'));
      expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'TERM']);
      expect(r.lines.join('\n')).not.toMatch(/do-not-leak|nope|FM_|XDG_/);
    });

    it('EXEC: runs in the requested folder, inside the scope', async () => {
      const r = await runCommand(fm, '/api/command/docs', 'pwd', { token: alice.token });
      expect(r.lines).toEqual([path.join(aliceHome, 'docs')]);
    });

    it('EXEC: refuses a working folder outside the scope (encoded ..)', async () => {
      const r = await runCommand(fm, '/api/command/%2e%2e%2f%2e%2e%2f', 'ls', { token: alice.token });
      expectRefused(r, /leaves the scope/);
    });

    it('EXEC: refuses a working folder reached through a link that leaves the scope', async () => {
      expectRefused(await runCommand(fm, '/api/command/escape', 'ls', { token: alice.token }), /outside your scope/);
    });

    it('EXEC: refuses a working folder denied by a rule', async () => {
      expectRefused(await runCommand(fm, '/api/command/secret', 'ls', { token: alice.token }), /denied by a rule/);
    });

    it('EXEC: refuses a working folder that does not exist or is a file', async () => {
      expectRefused(await runCommand(fm, '/api/command/nope', 'ls', { token: alice.token }), /not found/);
      expectRefused(await runCommand(fm, '/api/command/docs/a.txt', 'ls', { token: alice.token }), /not.*folder/);
    });

    it('EXEC: refuses arguments that name paths outside the scope, denied by rules or through escaping links', async () => {
      expectRefused(await runCommand(fm, '/api/command/', 'cat /etc/passwd', { token: alice.token }), /absolute path/);
      expectRefused(await runCommand(fm, '/api/command/', 'cat ../outside.txt', { token: alice.token }), /outside your scope/);
      expectRefused(await runCommand(fm, '/api/command/docs', 'cat ../../outside.txt', { token: alice.token }), /outside your scope/);
      expectRefused(await runCommand(fm, '/api/command/', 'cat secret/key.txt', { token: alice.token }), /denied by a rule/);
      expectRefused(await runCommand(fm, '/api/command/', 'ls escape', { token: alice.token }), /outside your scope/);
      expectRefused(await runCommand(fm, '/api/command/', 'ls escape/..', { token: alice.token }), /outside your scope/);
      expectRefused(await runCommand(fm, '/api/command/', 'grep --file=/etc/passwd x', { token: alice.token }), /absolute path/);
      // Inside the scope, .. is fine.
      const r = await runCommand(fm, '/api/command/docs', 'cat ../docs/a.txt', { token: alice.token });
      expect(r.lines).toEqual(['alpha', 'beta']);
    });

    it('EXEC: refuses a user without the execute permission', async () => {
      expectRefused(await runCommand(fm, '/api/command/', 'echo hi', { token: bob.token }), /execute permission/);
    });

    it('AUTH: refuses a socket without a token before the upgrade (401)', async () => {
      const r = await runCommand(fm, '/api/command/', 'echo hi', {});
      expect(r.httpStatus).toBe(401);
      expect(r.frames).toEqual([]);
    });

    it('AUTH: refuses a forged token (401)', async () => {
      const forged = `${alice.token.slice(0, -4)}AAAA`;
      expect((await runCommand(fm, '/api/command/', 'echo hi', { token: forged })).httpStatus).toBe(401);
    });

    it('AUTH/EXEC (GHSA-72wf-hwcq-65h9): refuses a cross-origin WebSocket even with the cookie (403)', async () => {
      for (const origin of ['http://evil.example', 'null', `http://localhost:${new URL(fm.url).port}`, 'http://127.0.0.1:1']) {
        const r = await runCommand(fm, '/api/command/', 'echo hi', { cookie: alice.token, origin });
        expect(r.httpStatus, origin).toBe(403);
        expect(r.httpBody).toMatch(/cross-origin/);
      }
    });

    it('AUTH: accepts a socket without an Origin header (non-browser clients; see docs/exec.md)', async () => {
      const r = await runCommand(fm, '/api/command/', 'echo no-origin', { token: alice.token, origin: null });
      expect(r.lines).toEqual(['no-origin']);
    });

    it('EXEC: the process dies when the client disconnects', async () => {
      let pids: number[] = [];
      const done = runCommand(fm, '/api/command/', 'sleep 987001', {
        token: alice.token,
        onOpen: (ws) => {
          void waitFor(() => (pids = sleepPids('987001')).length > 0, 'the sleep to start').then(() => ws.terminate());
        },
      });
      await done;
      expect(pids.length).toBe(1);
      await waitFor(() => !alive(pids[0]), 'the process to be killed');
    });
  });

  it('DOS: a user runs at most 4 commands at the same time', async () => {
    const sockets: WebSocket[] = [];
    const runs = ['987011', '987012', '987013', '987014'].map((arg) =>
      runCommand(fm, '/api/command/', `sleep ${arg}`, { token: alice.token, onOpen: (ws) => sockets.push(ws) }),
    );
    try {
      await waitFor(() => ['987011', '987012', '987013', '987014'].every((a) => sleepPids(a).length === 1), 'four sleeps');
      expectRefused(await runCommand(fm, '/api/command/', 'echo fifth', { token: alice.token }), /already run 4 commands/);
    } finally {
      for (const ws of sockets) ws.terminate();
      await Promise.all(runs);
    }
    await waitFor(() => ['987011', '987012', '987013', '987014'].every((a) => sleepPids(a).length === 0), 'the sleeps to end');
    expect((await runCommand(fm, '/api/command/', 'echo again', { token: alice.token })).lines).toEqual(['again']);
  });

  describe('with a configured shell', () => {
    beforeAll(async () => {
      await setSettings(admin, { enableExec: true, shell: ['sh', '-c'] });
    });

    it('runs lists, pipes and redirections inside the current folder', async () => {
      const r = await runCommand(fm, '/api/command/docs', 'cat a.txt | grep beta > out.txt && cat out.txt; echo done', { token: alice.token });
      expect(r.lines).toEqual(['beta', 'done']);
      expect(r.final).toEqual({ type: 'exit', code: 0 });
      expect(fs.readFileSync(path.join(aliceHome, 'docs', 'out.txt'), 'utf8')).toBe('beta\n');
      const r2 = await runCommand(fm, '/api/command/docs', 'ls missing 2>&1 | grep -c missing', { token: alice.token });
      expect(r2.lines).toEqual(['1']);
    });

    it('passes quoted metacharacters as plain arguments', async () => {
      const r = await runCommand(fm, '/api/command/', `echo '$(id)' "a;b" 'x|y' '*'`, { token: alice.token });
      expect(r.lines).toEqual(['$(id) a;b x|y *']);
    });

    const bypasses: Array<[string, RegExp]> = [
      ['ls; id', /"id" is not in your allowed commands/],
      ['ls && id', /"id" is not in your allowed commands/],
      ['ls || id', /"id" is not in your allowed commands/],
      ['ls | sh', /"sh" is not in your allowed commands/],
      ['$(id)', /command substitution/],
      ['echo "$(id)"', /command substitution/],
      ['`id`', /backticks/],
      ['ls > /etc/x', /outside the current folder/],
      ['ls > ../x', /outside the current folder/],
      ['ls > escape/x', /outside your scope/],
      ['cat < /etc/passwd', /outside the current folder/],
      ['env id', /"env" is not in your allowed commands/],
      ['x=id; $x', /variables/],
      ['x=id ls', /assignments/],
      ['${PATH}', /parameter expansion/],
      ['cat <(id)', /process substitution/],
      ['echo $((1+1))', /arithmetic/],
      ['f() { id; }', /function definitions/],
      ['function f { id; }', /braces/],
      ['{ id; }', /braces/],
      ['(id)', /subshells/],
      ['if true; then id; fi', /keywords/],
      ['for x in a; do id; done', /keywords/],
      ['ls & id', /background/],
      ['cat <<EOF', /here-documents/],
      ['ls *', /glob/],
      ['ls |& id', /\|&/],
      ['echo ~root', /~ is not expanded/],
      ['echo hi >&/etc/x', /not supported/],
      ["echo 'unterminated", /quote is not closed/],
      ['echo hi # comment; id', /comments/],
    ];
    for (const [line, why] of bypasses) {
      it(`EXEC: refuses ${JSON.stringify(line)} with a shell`, async () => {
        expectRefused(await runCommand(fm, '/api/command/', line, { token: alice.token }), why);
      });
    }

    it('EXEC: the whole process group dies when the client disconnects', async () => {
      let pids: number[] = [];
      await runCommand(fm, '/api/command/', 'sleep 987002 | sleep 987003', {
        token: alice.token,
        onOpen: (ws) => {
          void waitFor(() => (pids = [...sleepPids('987002'), ...sleepPids('987003')]).length === 2, 'both sleeps').then(() => ws.terminate());
        },
      });
      expect(pids.length).toBe(2);
      await waitFor(() => pids.every((p) => !alive(p)), 'the pipeline to be killed');
    });
  });

  describe('launchers in allowlists (GHSA-3q2w-42mv-cph4)', () => {
    it('EXEC: the settings API refuses a launcher in the default allowlist without force', async () => {
      for (const launcher of ['sh', 'env', 'find', 'python3', 'xargs', '/usr/bin/awk', 'sed', 'git', 'perl']) {
        const res = await putSettings(admin, { defaults: { commands: ['ls', launcher] } });
        expect(res.status, launcher).toBe(400);
        expect(await res.text()).toMatch(/can launch other programs/);
      }
      const forced = await putSettings(admin, { defaults: { commands: ['ls', 'env'] } }, '?force=true');
      expect(forced.status).toBe(200);
      // Saving again without force keeps what the admin already forced.
      expect((await putSettings(admin, { signup: false })).status).toBe(200);
      await setSettings(admin, { defaults: { commands: [] } });
    });

    it('EXEC: the users API refuses a launcher in a user allowlist without force (create and update)', async () => {
      const create = await admin.fetch('/api/users', {
        method: 'POST',
        json: {
          what: 'user',
          which: [],
          current_password: fm.adminPassword,
          data: { username: 'carol', password: 'a-long-test-password-1', commands: ['bash'] },
        },
      });
      expect(create.status).toBe(400);
      expect(await create.text()).toMatch(/"bash" can launch other programs/);

      const body = { what: 'user', which: ['commands'], current_password: fm.adminPassword, data: { id: aliceId, commands: [...ALLOWED, 'xargs'] } };
      const update = await admin.fetch(`/api/users/${aliceId}`, { method: 'PUT', json: body });
      expect(update.status).toBe(400);
      expect(await update.text()).toMatch(/"xargs" can launch other programs/);

      const forced = await admin.fetch(`/api/users/${aliceId}?force=true`, { method: 'PUT', json: body });
      expect(forced.status).toBe(200);
      const restore = await admin.fetch(`/api/users/${aliceId}`, { method: 'PUT', json: { ...body, data: { id: aliceId, commands: ALLOWED } } });
      expect(restore.status).toBe(200);
    });

    it('EXEC: the settings API refuses a shell that is not a POSIX shell or not used with -c', async () => {
      for (const shell of [['python3', '-c'], ['bash'], ['bash', '-i', '-c'], ['env', 'sh', '-c']]) {
        const res = await putSettings(admin, { shell });
        expect(res.status, shell.join(' ')).toBe(400);
      }
    });

    it('EXEC: the settings API refuses hook lines fm could not run safely', async () => {
      await setSettings(admin, { shell: [] });
      for (const line of ['/bin/echo $FILE', 'logger; id', 'cat `id`']) {
        const res = await putSettings(admin, { commands: { before_save: [line] } });
        expect(res.status, line).toBe(400);
        expect(await res.text()).toMatch(/commands\.before_save/);
      }
    });
  });
});

describe('command runner limits and base URL', () => {
  let fm: FmServer;
  let alice: Client;

  beforeAll(async () => {
    fm = await startFm({ root: tempDir('fm-exec-root-'), args: ['--baseurl', '/fm', '--exec-timeout', '2s', '--exec-max-output', '4K'] });
    const admin = await adminClient(fm);
    await setSettings(admin, { enableExec: true });
    const perm = { execute: true, create: true, modify: true, rename: true, delete: true, download: true, share: false, admin: false };
    alice = (await createUser(admin, fm, 'alice', { perm, commands: ['sleep', 'cat', 'echo'] })).client;
    fs.writeFileSync(path.join(fm.root, 'big.txt'), 'x'.repeat(100) + '\n'.repeat(1) + 'y'.repeat(64 * 1024));
  });

  afterAll(async () => {
    await fm?.stop();
    if (fm) fs.rmSync(fm.root, { recursive: true, force: true });
  });

  it('serves the runner under the base URL', async () => {
    expect(fm.url).toMatch(/\/fm$/);
    const r = await runCommand(fm, '/api/command/', 'echo based', { token: alice.token });
    expect(r.lines).toEqual(['based']);
  });

  it('EXEC: stops a command at the time limit', async () => {
    const r = await runCommand(fm, '/api/command/', 'sleep 987004', { token: alice.token });
    expect(r.final).toMatchObject({ type: 'exit', reason: 'time limit' });
    expect(r.lines).toContain('fm: the command was stopped: time limit reached');
    expect(r.closeCode).toBe(1000);
    expect(sleepPids('987004')).toEqual([]);
  });

  it('EXEC: stops a command at the output limit', async () => {
    const r = await runCommand(fm, '/api/command/', 'cat big.txt', { token: alice.token });
    expect(r.final).toMatchObject({ type: 'exit', reason: 'output limit' });
    const output = r.lines.slice(0, -1).join('\n');
    expect(output.length).toBeLessThanOrEqual(4096);
    expect(output.startsWith('x'.repeat(100))).toBe(true);
  });
});
