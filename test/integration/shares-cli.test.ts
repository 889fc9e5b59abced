/** `fm shares ls|rm` on the database of a running server. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';
import { PERMS, publicInfo, share, type ShareDto } from './share-helpers.ts';

let fm: FmServer;
let aliceShare: ShareDto;
let bobShare: ShareDto;
let bobTimed: ShareDto;

const fmCli = (...args: string[]) => runFm(['--database', fm.dbFile, ...args]);

beforeAll(async () => {
  fm = await startFm();
  for (const u of ['alice', 'bob']) {
    fs.mkdirSync(path.join(fm.root, u), { recursive: true });
    fs.writeFileSync(path.join(fm.root, u, 'f.txt'), u);
  }
  const admin = await adminClient(fm);
  const alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  const bob = await createUser(admin, fm, 'bob', { scope: '/bob', perm: PERMS });
  bobTimed = await share(bob.client, '/f.txt', { expires: 1, unit: 'days', password: 'secret words' });
  aliceShare = await share(alice.client, '/f.txt');
  bobShare = await share(bob.client, '/f.txt');
});

afterAll(async () => {
  await fm?.stop();
});

describe('fm shares ls', () => {
  it('lists every link with usernames as JSON, permanent first, without secrets', async () => {
    const r = await fmCli('shares', 'ls', '--json');
    expect(r.code, r.stderr).toBe(0);
    const list = JSON.parse(r.stdout) as ShareDto[];
    expect(list.map((s) => s.hash)).toEqual([aliceShare.hash, bobShare.hash, bobTimed.hash]);
    expect(list[0]).toEqual({ ...aliceShare, username: 'alice' });
    expect(list[2]).toMatchObject({ username: 'bob', hasPassword: true });
    expect(r.stdout).not.toMatch(/password_hash|token|\$2[aby]\$/);
  });

  it('filters by user id or name', async () => {
    const byName = JSON.parse((await fmCli('--json', 'shares', 'ls', '--user', 'bob')).stdout) as ShareDto[];
    expect(byName.map((s) => s.hash).sort()).toEqual([bobShare.hash, bobTimed.hash].sort());
    const byId = JSON.parse((await fmCli('shares', 'ls', '--user', String(aliceShare.userID), '--json')).stdout) as ShareDto[];
    expect(byId.map((s) => s.hash)).toEqual([aliceShare.hash]);
    const missing = await fmCli('shares', 'ls', '--user', 'nobody');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nobody');
  });

  it('prints a table for humans', async () => {
    const r = await fmCli('shares', 'ls');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HASH\s+USER\s+EXPIRES\s+PASSWORD\s+PATH/);
    expect(r.stdout).toContain(aliceShare.hash);
    expect(r.stdout).toMatch(/permanent/);
  });
});

describe('fm shares rm', () => {
  it('without a terminal the command line is the confirmation (as rm)', async () => {
    const extra = JSON.parse((await fmCli('shares', 'ls', '--json')).stdout) as ShareDto[];
    const r = await fmCli('shares', 'rm', bobTimed.hash);
    expect(r.code, r.stderr).toBe(0);
    expect((await publicInfo(fm, bobTimed.hash)).status).toBe(404);
    expect(extra.some((s) => s.hash === bobTimed.hash)).toBe(true);
  });

  it('deletes exactly the given hash; the running server sees it at once', async () => {
    expect((await fmCli('shares', 'rm', aliceShare.hash.slice(0, 6), '--yes')).code).toBe(1);
    const r = await fmCli('shares', 'rm', aliceShare.hash, '--yes');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(aliceShare.hash);
    expect((await publicInfo(fm, aliceShare.hash)).status).toBe(404);
    expect((await publicInfo(fm, bobShare.hash)).status).toBe(200);
  });

  it('unknown hashes fail with exit 1', async () => {
    const r = await fmCli('shares', 'rm', 'AAAAAAAAAAAA', '--yes');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not found/);
  });
});
