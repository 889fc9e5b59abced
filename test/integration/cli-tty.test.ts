/**
 * On a terminal fm asks: a hidden, confirmed password prompt and confirmations of destructive
 * commands. The terminal is a pseudo-terminal from util-linux `script`; input is typed when
 * the prompt appears (no sleeps).
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { FM_BIN, startFm, type FmServer } from '../helpers/server.ts';

vi.setConfig({ testTimeout: 120_000 });

const hasScript = spawnSync('script', ['--version']).status === 0;
let fm: FmServer;

/** Runs fm on a pseudo-terminal; each [prompt, answer] pair types the answer once the prompt shows. */
function onTerminal(args: string[], dialogue: Array<[RegExp, string]>): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, FM_BIN, '--database', fm.dbFile, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb' } });
  let output = '';
  let step = 0;
  let seen = 0;
  const onData = (d: string) => {
    output += d;
    while (step < dialogue.length) {
      const rest = output.slice(seen);
      const m = dialogue[step][0].exec(rest);
      if (!m) break;
      seen += m.index + m[0].length;
      child.stdin.write(dialogue[step][1]);
      step++;
    }
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  // A prompt that never shows would wait for input forever: end it and let the test fail.
  const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    }),
  );
}

async function usernames(): Promise<string[]> {
  return JSON.parse((await runFm(['--database', fm.dbFile, 'users', 'ls', '--json'])).stdout).map((u: { username: string }) => u.username);
}

async function canLogin(username: string, password: string): Promise<boolean> {
  const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username, password }) });
  await res.text();
  return res.status === 200;
}

beforeAll(async () => {
  if (hasScript) fm = await startFm();
});
afterAll(async () => {
  await fm?.stop();
});

describe.skipIf(!hasScript)('prompts on a terminal', () => {
  it('asks for a missing password twice, hidden, and the user can log in with it', async () => {
    const r = await onTerminal(
      ['users', 'add', 'tina'],
      [
        [/New password for "tina"/, 'tina-long-password\r'],
        [/Repeat the password/, 'tina-long-password\r'],
      ],
    );
    expect(r.code).toBe(0);
    expect(r.output).toContain('added user "tina"');
    expect(r.output).not.toContain('tina-long-password');
    expect(await canLogin('tina', 'tina-long-password')).toBe(true);
  });

  it('asks again when the two passwords differ', async () => {
    const r = await onTerminal(
      ['users', 'update', 'tina', '--password'],
      [
        [/New password for "tina"/, 'first-long-password\r'],
        [/Repeat the password/, 'other-long-password\r'],
        [/do not match[\s\S]*New password for "tina"/, 'second-long-password\r'],
        [/Repeat the password/, 'second-long-password\r'],
      ],
    );
    expect(r.code).toBe(0);
    expect(await canLogin('tina', 'second-long-password')).toBe(true);
  });

  it('confirms a deletion: "no" keeps the user (exit 1), "yes" deletes it', async () => {
    const no = await onTerminal(['users', 'rm', 'tina'], [[/Delete user "tina"/, 'n\r']]);
    expect(no.code).toBe(1);
    expect(no.output).toContain('fm: cancelled');
    expect(await usernames()).toContain('tina');
    const yes = await onTerminal(['users', 'rm', 'tina'], [[/Delete user "tina"/, 'y\r']]);
    expect(yes.code).toBe(0);
    expect(await usernames()).not.toContain('tina');
  });

  it('--yes skips the question', async () => {
    await runFm(['--database', fm.dbFile, 'users', 'add', 'ulla', 'ulla-long-password']);
    const r = await onTerminal(['users', 'rm', 'ulla', '--yes'], []);
    expect(r.code).toBe(0);
    expect(r.output).not.toContain('Delete user');
    expect(await usernames()).not.toContain('ulla');
  });
});
