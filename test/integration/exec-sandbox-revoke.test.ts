/**
 * The command WebSocket follows the database: when the CLI (another process writing the same
 * SQLite file) turns exec off, removes the execute permission, deletes the user or changes their
 * password, open sockets close within about a second and their runs stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { runFm } from '../helpers/cli.ts';
import { alive } from '../helpers/processes.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { setSettings, sleepPids, waitFor, wsUrl } from './exec-helpers.ts';

interface OpenRun {
  pid: number;
  /** Resolves at the close with the last frame, the close code and when it came. */
  closed: Promise<{ final: { type: string; message?: string }; code: number; at: number }>;
}

/** Starts `sleep <arg>` over a socket and waits until it runs. */
async function openRun(fm: FmServer, token: string, arg: string): Promise<OpenRun> {
  const ws = new WebSocket(wsUrl(fm, '/api/command/'), { headers: { 'X-Auth': token } });
  const frames: string[] = [];
  ws.on('message', (d) => frames.push(d.toString()));
  const closed = new Promise<{ final: { type: string; message?: string }; code: number; at: number }>((resolve) => {
    ws.on('close', (code) => resolve({ final: JSON.parse(frames[frames.length - 1] ?? '{}'), code, at: Date.now() }));
  });
  ws.on('open', () => ws.send(`sleep ${arg}`));
  await waitFor(() => sleepPids(arg).length === 1, `sleep ${arg} to run`);
  return { pid: sleepPids(arg)[0], closed };
}

describe('open command sockets follow changes made by the CLI', () => {
  let fm: FmServer;
  let admin: Client;
  const cli = (...args: string[]) => runFm([...args, '-d', fm.dbFile]);

  beforeAll(async () => {
    fm = await startFm();
    admin = await adminClient(fm);
    await setSettings(admin, { enableExec: true });
  });

  afterAll(async () => {
    await fm?.stop();
  });

  const user = async (name: string) => (await createUser(admin, fm, name, { perm: { execute: true }, commands: ['sleep'] })).client;

  /** Runs the CLI change while a command runs; expects the socket refused and closed within ~1 s, and the run gone. */
  async function expectClosedBy(token: string, arg: string, change: string[], why: RegExp): Promise<void> {
    const open = await openRun(fm, token, arg);
    const r = await cli(...change);
    expect(r.code, r.stderr).toBe(0);
    const changedAt = Date.now();
    const closed = await open.closed;
    expect(closed.final.type).toBe('refused');
    expect(closed.final.message).toMatch(why);
    expect(closed.code).toBe(1008);
    expect(closed.at - changedAt).toBeLessThan(1500);
    await waitFor(() => !alive(open.pid), 'the run to stop');
  }

  it('SANDBOX: turning exec off (fm config set --no-exec) closes open sockets and stops their runs', async () => {
    const carol = await user('carol');
    try {
      await expectClosedBy(carol.token, '987501', ['config', 'set', '--no-exec'], /disabled/);
    } finally {
      expect((await cli('config', 'set', '--exec')).code).toBe(0);
    }
  });

  it('SANDBOX: removing the execute permission (fm users update --no-perm-execute) closes the socket', async () => {
    const dave = await user('dave');
    await expectClosedBy(dave.token, '987502', ['users', 'update', 'dave', '--no-perm-execute'], /execute permission required/);
  });

  it('SANDBOX: deleting the user (fm users rm) closes the socket', async () => {
    const erin = await user('erin');
    await expectClosedBy(erin.token, '987503', ['users', 'rm', 'erin', '--yes'], /no longer signed in/);
  });

  it('SANDBOX: changing the password (fm users update --password) revokes the token and closes the socket', async () => {
    const frank = await user('frank');
    await expectClosedBy(frank.token, '987504', ['users', 'update', 'frank', '--password', 'another-long-password-2'], /session revoked/);
    expect((await frank.fetch('/api/resources/')).status).toBe(401);
  });

  it('SANDBOX: a socket opened after the change is refused at once (the upgrade reads the database afresh)', async () => {
    const grace = await user('grace');
    expect((await cli('users', 'update', 'grace', '--no-perm-execute')).code).toBe(0);
    const ws = new WebSocket(wsUrl(fm, '/api/command/'), { headers: { 'X-Auth': grace.token } });
    const frames: string[] = [];
    ws.on('message', (d) => frames.push(d.toString()));
    ws.on('open', () => ws.send('sleep 987505'));
    const code = await new Promise<number>((resolve) => ws.on('close', resolve));
    expect(code).toBe(1008);
    expect(JSON.parse(frames[frames.length - 1])).toMatchObject({ type: 'refused', message: expect.stringMatching(/execute permission/) });
    expect(sleepPids('987505')).toEqual([]);
  });
});
