/**
 * Brute force on share passwords: wrong passwords are throttled per link and per address,
 * like logins, ending in 429 with Retry-After. Its own server: the lock would disturb other tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, type FmServer } from '../helpers/server.ts';
import { PERMS, publicInfo, share, type ShareDto } from './share-helpers.ts';

let fm: FmServer;
let locked: ShareDto;
let other: ShareDto;
let open: ShareDto;

beforeAll(async () => {
  fm = await startFm();
  fs.mkdirSync(path.join(fm.root, 'alice'), { recursive: true });
  fs.writeFileSync(path.join(fm.root, 'alice/a.txt'), 'alpha');
  const admin = await adminClient(fm);
  const alice = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  locked = await share(alice.client, '/a.txt', { password: 'right password' });
  other = await share(alice.client, '/a.txt', { password: 'another password' });
  open = await share(alice.client, '/a.txt');
});

afterAll(async () => {
  await fm?.stop();
});

describe('SHARE brute force: wrong share passwords are throttled', () => {
  it('locks after repeated wrong passwords with 429 and Retry-After, even for the right password', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': `wrong-${i}` })).status);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const res = await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': 'wrong-again' });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('Retry-After'))).toBeGreaterThan(0);
    expect((await publicInfo(fm, locked.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent('right password') })).status).toBe(429);
  });

  it('the lock covers the address on other password links too', async () => {
    const res = await publicInfo(fm, other.hash, '', { 'X-SHARE-PASSWORD': encodeURIComponent('another password') });
    expect(res.status).toBe(429);
  });

  it('links without a password stay reachable', async () => {
    expect((await publicInfo(fm, open.hash)).status).toBe(200);
  });
});

describe('SHARE brute force: a burst of parallel guesses', () => {
  let fm2: FmServer;
  let target: ShareDto;

  beforeAll(async () => {
    fm2 = await startFm();
    fs.mkdirSync(path.join(fm2.root, 'alice'), { recursive: true });
    fs.writeFileSync(path.join(fm2.root, 'alice/a.txt'), 'alpha');
    const admin = await adminClient(fm2);
    const alice = await createUser(admin, fm2, 'alice', { scope: '/alice', perm: PERMS });
    target = await share(alice.client, '/a.txt', { password: 'right password' });
  });

  afterAll(async () => {
    await fm2?.stop();
  });

  it('cannot get more guesses past the limit than sequential ones', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => publicInfo(fm2, target.hash, '', { 'X-SHARE-PASSWORD': `guess-${i}` }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });
});
