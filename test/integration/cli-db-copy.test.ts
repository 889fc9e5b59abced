/**
 * `fm db copy` moves an instance from SQLite to PostgreSQL and back (issue 21): users, their
 * passwords, settings, links and the audit log arrive; a target that holds records is refused unless --force;
 * the URL's password is never printed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, tempDir } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';
import { postgresBin, startCluster, type PgCluster } from '../helpers/postgres.ts';
import { share } from './share-helpers.ts';

describe.skipIf(!postgresBin())('fm db copy', () => {
  let cluster: PgCluster;
  let home: string;
  let root: string;
  let adminPassword: string;
  let linkHash: string;
  let pgUrl: string;

  beforeAll(async () => {
    cluster = await startCluster();
    // Trust authentication ignores the password: it is there to prove it is never printed.
    pgUrl = (await cluster.createDatabase()).replace('fm@', 'fm:hunter2secret@');
    home = tempDir();
    root = path.join(home, 'root');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'moved.txt'), 'along for the ride');
    const fm = await startFm({ home, root, args: ['--database', path.join(home, 'fm.db')] });
    adminPassword = fm.adminPassword;
    const admin = await adminClient(fm);
    await createUser(admin, fm, 'gina', {}, 'gina-password-long-1');
    const settings = await admin.json<Record<string, unknown>>('/api/settings');
    await admin.fetch('/api/settings', { method: 'PUT', json: { ...settings, branding: { name: 'Moved fm' } } });
    linkHash = (await share(admin, '/moved.txt')).hash;
    await fm.stop();
    // The key that seals two-factor secrets goes along (made here as the first enrolment would).
    fs.writeFileSync(path.join(home, 'secrets.key'), crypto.randomBytes(32), { mode: 0o600 });
  });
  afterAll(async () => {
    await cluster?.destroy();
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** Starts fm on `database` over the same root and checks that everything made above is there. */
  async function expectMoved(database: string, dataHome: string): Promise<void> {
    const fm = await startFm({ home: dataHome, root, args: ['--database', database] });
    try {
      expect(fm.adminPassword).toBe('');
      const admin = new Client(fm.url);
      await admin.login('admin', adminPassword);
      await new Client(fm.url).login('gina', 'gina-password-long-1');
      expect((await admin.json<{ branding: { name: string } }>('/api/settings')).branding.name).toBe('Moved fm');
      const res = await fetch(`${fm.url}/api/public/dl/${linkHash}`);
      expect(await res.text()).toBe('along for the ride');
      expect(fs.readFileSync(path.join(dataHome, 'secrets.key')).equals(fs.readFileSync(path.join(home, 'secrets.key')))).toBe(true);
      // The audit log went along: the link made before the move is in it, once.
      const made = await admin.json<Array<{ action: string; path: string }>>('/api/audit?action=share-create');
      expect(made.map((e) => e.path)).toEqual(['/moved.txt']);
    } finally {
      await fm.stop();
    }
  }

  it('copies a SQLite database to PostgreSQL, without printing the password', async () => {
    const res = await runFm(['db', 'copy', '--from', path.join(home, 'fm.db'), '--to', pgUrl]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^copied \d+ record\(s\) and [1-9]\d* audit log entries from .*fm\.db to postgres:\/\/fm:\*\*\*@127\.0\.0\.1/);
    expect(res.stdout + res.stderr).not.toContain('hunter2secret');
    await expectMoved(pgUrl, tempDir());
  });

  it('refuses a target that holds records unless --force', async () => {
    const refused = await runFm(['db', 'copy', '--from', path.join(home, 'fm.db'), '--to', pgUrl]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds \d+ record\(s\): give --force to replace them/);
    expect(refused.stderr).not.toContain('hunter2secret');
    const forced = await runFm(['db', 'copy', '--from', path.join(home, 'fm.db'), '--to', pgUrl, '--force']);
    expect(forced.code).toBe(0);
  });

  it('copies PostgreSQL back to a new SQLite file', async () => {
    const back = tempDir();
    const res = await runFm(['db', 'copy', '--from', pgUrl, '--to', path.join(back, 'fm.db')]);
    expect(res.code).toBe(0);
    await expectMoved(path.join(back, 'fm.db'), back);
  });

  it('refuses a source that does not exist, and the same database twice', async () => {
    const missing = await runFm(['db', 'copy', '--from', path.join(home, 'nope.db'), '--to', pgUrl]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/does not exist/);
    expect(fs.existsSync(path.join(home, 'nope.db'))).toBe(false);
    const same = await runFm(['db', 'copy', '--from', pgUrl, '--to', pgUrl]);
    expect(same.code).toBe(2);
  });
});
