/** `fm audit ls` and `fm config set --audit-retention` on the database of a running server. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/api/audit.ts';
import { runFm } from '../helpers/cli.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS } from './share-helpers.ts';

let fm: FmServer;
let admin: Client;
const fmCli = (...args: string[]) => runFm(['--database', fm.dbFile, ...args]);

beforeAll(async () => {
  fm = await startFm({ args: ['--no-index'] });
  fs.mkdirSync(path.join(fm.root, 'alice'), { recursive: true });
  for (const name of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(fm.root, 'alice', name), name);
  admin = await adminClient(fm);
  const alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  await alice.client.fetch('/api/resources/a.txt', { method: 'DELETE' });
  await alice.client.fetch('/api/resources/b.txt', { method: 'DELETE' });
  await alice.client.fetch('/api/raw/c.txt');
  await admin.fetch('/api/resources/alice/c.txt', { method: 'DELETE' });
  // Reading the log over HTTP writes what the server still holds in its queue.
  await admin.json('/api/audit');
});
afterAll(async () => {
  await fm?.stop();
});

describe('fm audit ls', () => {
  it('filters by time, user and action, and prints the API entries with --json', async () => {
    const r = await fmCli('audit', 'ls', '--since', '24h', '--user', 'alice', '--action', 'delete', '--json');
    expect(r.code, r.stderr).toBe(0);
    const entries = JSON.parse(r.stdout) as AuditEntry[];
    expect(entries.map((e) => [e.actor, e.action, e.path, e.status])).toEqual([
      ['alice', 'delete', '/b.txt', 204],
      ['alice', 'delete', '/a.txt', 204],
    ]);
    expect(entries).toEqual(await admin.json<AuditEntry[]>('/api/audit?since=24h&user=alice&action=delete'));
  });

  it('prints a table for people and CSV with --csv; an empty result says so', async () => {
    const table = await fmCli('audit', 'ls', '--user', 'alice', '--action', 'download');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^TIME\s+ACTOR\s+ADDRESS\s+ACTION\s+PATH\s+BYTES\s+STATUS\s+DETAIL\n/);
    expect(table.stdout).toMatch(/alice\s+127\.0\.0\.1\s+download\s+\/c\.txt\s+5\s+200/);
    const csv = await fmCli('audit', 'ls', '--action', 'delete', '--csv');
    expect(csv.stdout.split('\r\n')[0]).toBe('time,actor,share,address,action,path,dest,bytes,status,detail,duration');
    expect(csv.stdout.split('\r\n').filter(Boolean)).toHaveLength(4);
    const none = await fmCli('audit', 'ls', '--until', '2001-01-01');
    expect(none.stdout.trim()).toBe('no entries');
  });

  it('refuses a bad time or action with a clear message', async () => {
    const since = await fmCli('audit', 'ls', '--since', 'yesterday');
    expect(since.code).not.toBe(0);
    expect(since.stderr).toMatch(/--since: expected an ISO 8601 date or a duration/);
    const act = await fmCli('audit', 'ls', '--action', 'explode');
    expect(act.code).toBe(2);
    expect(act.stderr).toMatch(/--action/);
  });

  it('fm config set --audit-retention changes the retention the server reports', async () => {
    const r = await fmCli('config', 'set', '--audit-retention', '30d');
    expect(r.code, r.stderr).toBe(0);
    expect(await admin.json('/api/audit/status')).toEqual({ lost: 0, retentionDays: 30 });
    expect((await fmCli('config', 'set', '--audit-retention', 'soon')).code).toBe(2);
  });
});

describe('changes made with the CLI', () => {
  it('are recorded with the system user, the exit code and the options given, never their values', async () => {
    const ok = await fmCli('users', 'update', 'alice', '--locale', 'fr', '--password', 'a-secret-never-logged-1');
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await fmCli('users', 'update', 'nobody', '--locale', 'fr');
    expect(bad.code).toBe(1);
    expect((await fmCli('users', 'ls')).code).toBe(0);
    const changes = await admin.json<AuditEntry[]>('/api/audit?action=user-change');
    const cli = changes.filter((e) => e.actor?.startsWith('(fm cli: '));
    expect(cli.map((e) => [e.detail, e.status])).toEqual([
      ['fm users update nobody (--locale)', 1],
      ['fm users update alice (--password, --locale)', 0],
    ]);
    const all = await (await admin.fetch('/api/audit?limit=10000&format=csv')).text();
    expect(all).not.toContain('a-secret-never-logged-1');
    // Reading commands are not recorded.
    expect((await admin.json<AuditEntry[]>('/api/audit?limit=10000')).some((e) => e.detail?.startsWith('fm users ls'))).toBe(false);
  });
});
