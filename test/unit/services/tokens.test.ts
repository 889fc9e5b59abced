/** Verified tokens are remembered by their string, which must never outlive expiry or revocation. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRepos, type Repos } from '../../../src/services/context.ts';
import { TokenService } from '../../../src/services/tokens.ts';
import type { UserRecord } from '../../../src/storage/repos/users.ts';
import { openDatabase, type Database } from '../../../src/storage/db.ts';

let tmp: string;
let db: Database;
let repos: Repos;
let user: UserRecord;

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-tokens-'));
  db = await openDatabase(path.join(tmp, 'fm.db'));
  repos = createRepos(db);
  user = { id: 7, username: 'ann', sessionEpoch: 0, updatedAt: 0, perm: {}, sorting: { by: 'name', asc: true } } as unknown as UserRecord;
  vi.spyOn(repos.users, 'get').mockImplementation(async (id) => (id === user.id ? structuredClone(user) : undefined));
});

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('verified-token cache', () => {
  it('refuses a token once it expires, though its signature was checked while it was valid', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2030-01-01T00:00:00Z') });
    const tokens = new TokenService(repos, 60);
    const token = await tokens.issue(user);
    await expect(tokens.verify(token)).resolves.toMatchObject({ user: { id: 7 } });
    vi.setSystemTime(new Date('2030-01-01T00:00:59Z'));
    await expect(tokens.verify(token)).resolves.toMatchObject({ user: { id: 7 } });
    vi.setSystemTime(new Date('2030-01-01T00:01:00Z'));
    await expect(tokens.verify(token)).rejects.toThrow('token expired');
  });

  it('refuses a remembered token after revocation, a session epoch change or the user’s deletion', async () => {
    const tokens = new TokenService(repos, 3600);
    const revoked = await tokens.issue(user);
    const { claims } = await tokens.verify(revoked);
    await tokens.revoke(claims);
    await expect(tokens.verify(revoked)).rejects.toThrow('session revoked');

    const other = await tokens.issue(user);
    await tokens.verify(other);
    user.sessionEpoch = 1; // a password change
    await expect(tokens.verify(other)).rejects.toThrow('session revoked');

    const last = await tokens.issue(user);
    await tokens.verify(last);
    user.id = 8; // user 7 is gone
    await expect(tokens.verify(last)).rejects.toThrow('user no longer exists');
  });

  it('still refuses a token whose signature does not match, every time', async () => {
    const tokens = new TokenService(repos, 3600);
    const token = await tokens.issue(user);
    const forged = `${token.slice(0, -2)}${token.endsWith('A') ? 'BB' : 'AA'}`;
    for (let i = 0; i < 2; i++) await expect(tokens.verify(forged)).rejects.toThrow('invalid token');
  });

  it('hands out claims nobody can change for the next request', async () => {
    const tokens = new TokenService(repos, 3600);
    const { claims } = await tokens.verify(await tokens.issue(user));
    expect(() => {
      (claims as { exp: number }).exp = Number.MAX_SAFE_INTEGER;
    }).toThrow(TypeError);
  });
});

describe('database refresh', () => {
  it('sees a commit by another connection in every refresh that starts after it, however many run at once', async () => {
    const other = await openDatabase(path.join(tmp, 'fm.db'));
    try {
      await db.ns('settings').set('probe', 1);
      await db.refresh();
      expect(await db.ns('settings').get('probe')).toBe(1); // now memoised
      const early = db.refresh(); // running while the other connection commits
      await other.ns('settings').set('probe', 2);
      await Promise.all([early, ...Array.from({ length: 20 }, () => db.refresh())]);
      expect(await db.ns('settings').get('probe')).toBe(2);
    } finally {
      await other.close();
    }
  });
});
