/**
 * Two fm instances on one PostgreSQL database and one root (issue 21): a change made on one
 * is in force on the other within 1 s, a logout or a password change revokes on both, login
 * throttling counts failures made on either, a link made on one works on the other, and both
 * seal two-factor secrets with the same key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { postgresBin, startCluster, type PgCluster } from '../helpers/postgres.ts';
import { PERMS, share, updateUser } from './share-helpers.ts';
import { openSse } from '../helpers/sse.ts';

/** How long a change may take to reach the other instance. */
const PROPAGATION = { timeout: 1_000, interval: 10 };

let cluster: PgCluster;
let a: FmServer;
let b: FmServer;
let adminA: Client;
let adminB: Client;

describe.skipIf(!postgresBin())('several instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    cluster = await startCluster();
    const url = await cluster.createDatabase();
    const root = tempDir('fm-shared-root-');
    a = await startFm({ root, args: ['--database', url] });
    b = await startFm({ root, args: ['--database', url] });
    adminA = await adminClient(a);
    adminB = new Client(b.url);
    // The admin (and its password) was made by the first instance.
    await adminB.login('admin', a.adminPassword);
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await cluster?.destroy();
  });

  it('a settings change made on one instance is in force on the other within 1 s', async () => {
    const before = await adminB.json<{ branding: { name: string } }>('/api/settings');
    const settings = await adminA.json<Record<string, unknown>>('/api/settings');
    const res = await adminA.fetch('/api/settings', { method: 'PUT', json: { ...settings, branding: { ...before.branding, name: 'Shared fm' } } });
    expect(res.status).toBe(200);
    await expect.poll(async () => (await adminB.json<{ branding: { name: string } }>('/api/settings')).branding.name, PROPAGATION).toBe('Shared fm');
  });

  it('a permission and a rule changed on one instance are enforced by the other within 1 s', async () => {
    const user = await createUser(adminA, a, 'dana', { perm: PERMS });
    const onB = new Client(b.url);
    await onB.login('dana', user.password);
    expect((await onB.fetch('/api/resources/made-on-b/', { method: 'POST' })).status).toBe(200);
    await updateUser(adminA, a, user.id, { perm: { ...PERMS, create: false } });
    await expect.poll(async () => (await onB.fetch('/api/resources/refused-on-b/', { method: 'POST' })).status, PROPAGATION).toBe(403);

    fs.writeFileSync(path.join(a.root, 'secret.txt'), 'x');
    expect((await onB.fetch('/api/resources/secret.txt')).status).toBe(200);
    await updateUser(adminA, a, user.id, { rules: [{ allow: false, path: '/secret.txt', regex: false }] });
    await expect.poll(async () => (await onB.fetch('/api/resources/secret.txt')).status, PROPAGATION).toBe(403);
  });

  it('a logout on one instance revokes the token on the other', async () => {
    const session = new Client(a.url);
    await session.login('admin', a.adminPassword);
    const onB = new Client(b.url);
    onB.token = session.token;
    expect((await onB.fetch('/api/users')).status).toBe(200);
    expect((await session.fetch('/api/logout', { method: 'POST' })).status).toBe(200);
    await expect.poll(async () => (await onB.fetch('/api/users')).status, PROPAGATION).toBe(401);
  });

  it("a password change on one instance revokes the user's other sessions on the other", async () => {
    const erin = await createUser(adminA, a, 'erin', { perm: PERMS });
    const onB = new Client(b.url);
    await onB.login('erin', erin.password);
    const res = await erin.client.fetch(`/api/users/${erin.id}`, {
      method: 'PUT',
      json: { what: 'user', which: ['password'], current_password: erin.password, data: { id: erin.id, password: 'erin-new-password-42' } },
    });
    expect(res.status).toBe(200);
    await expect.poll(async () => (await onB.fetch(`/api/users/${erin.id}`)).status, PROPAGATION).toBe(401);
    await new Client(b.url).login('erin', 'erin-new-password-42');
  });

  it('login failures count on every instance: ten wrong passwords spread over both lock the name on both', async () => {
    await createUser(adminA, a, 'frank');
    const attempt = (fm: FmServer, password: string) =>
      fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'frank', password }) }).then((r) => r.status);
    for (let i = 0; i < 10; i++) expect(await attempt(i % 2 ? b : a, 'wrong-password')).toBe(403);
    expect(await attempt(a, 'a-long-test-password-1')).toBe(429);
    expect(await attempt(b, 'a-long-test-password-1')).toBe(429);
  }, 60_000);

  it('a link made on one instance works on the other', async () => {
    fs.writeFileSync(path.join(a.root, 'shared.txt'), 'one root');
    const link = await share(adminA, '/shared.txt');
    const res = await fetch(`${b.url}/api/public/dl/${link.hash}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('one root');
  });

  it('both instances seal two-factor secrets with the one key stored in the database', () => {
    const keyA = fs.readFileSync(path.join(a.home, 'secrets.key'));
    const keyB = fs.readFileSync(path.join(b.home, 'secrets.key'));
    expect(keyA.length).toBe(32);
    expect(keyB.equals(keyA)).toBe(true);
  });

  it("an instance's search index hears of the files written through another (channel fm_files), and not of its own", async () => {
    const { openDatabase } = await import('../../src/storage/db.ts');
    const url = await cluster.createDatabase();
    const one = await openDatabase(url, { dataDir: tempDir() });
    const two = await openDatabase(url, { dataDir: tempDir() });
    try {
      const heardByOne: unknown[] = [];
      const heardByTwo: unknown[] = [];
      one.cluster!.onFiles((c) => heardByOne.push(c));
      two.cluster!.onFiles((c) => heardByTwo.push(c));
      // A name that is not UTF-8 reaches fm as a string with a lone surrogate: it must travel intact.
      const odd = `/srv/root/caf\udce9.txt`;
      one.cluster!.announceFiles({ kind: 'moved', abs: odd, toAbs: '/srv/root/b.txt' });
      await expect.poll(() => heardByTwo, PROPAGATION).toEqual([{ kind: 'moved', abs: odd, toAbs: '/srv/root/b.txt' }]);
      expect(heardByOne).toEqual([]);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('a file uploaded through one instance is found by the search of the other', async () => {
    expect((await adminA.fetch('/api/resources/findme-everywhere.txt', { method: 'POST', body: 'x' })).status).toBe(200);
    await expect
      .poll(async () => JSON.stringify(await adminB.json('/api/search/?query=findme-everywhere')), { timeout: 5_000, interval: 50 })
      .toContain('findme-everywhere.txt');
  });

  it('an open folder on one instance hears of a file written through another, with no watcher of its own (--no-index)', async () => {
    const url = await cluster.createDatabase();
    const root = tempDir('fm-shared-root-');
    const one = await startFm({ root, args: ['--database', url, '--no-index'] });
    const two = await startFm({ root, args: ['--database', url, '--no-index'] });
    try {
      const onOne = await adminClient(one);
      const onTwo = new Client(two.url);
      await onTwo.login('admin', one.adminPassword);
      const stream = await openSse(`${two.url}/api/events/`, { 'X-Auth': onTwo.token });
      expect(stream.status).toBe(200);
      await stream.reader!.waitFor((e) => e.event === 'ready');
      expect((await onOne.fetch('/api/resources/from-one.txt', { method: 'POST', body: 'x' })).status).toBe(200);
      const change = await stream.reader!.waitFor((e) => e.event === 'change' && e.data.includes('from-one.txt'), 5_000);
      expect(JSON.parse(change.data).items.map((i: { name: string }) => i.name)).toContain('from-one.txt');
      stream.reader!.close();
    } finally {
      await one.stop();
      await two.stop();
    }
  });
});
