/** A personal access token's lifetime is exactly what was asked for, whatever the clock does meanwhile. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { AccessTokenService } from '../../../src/services/access-tokens.ts';
import { createRepos, type Repos } from '../../../src/services/context.ts';
import { type Database, openDatabase } from '../../../src/storage/db.ts';
import type { UserRecord } from '../../../src/storage/repos/users.ts';

let tmp: string;
let db: Database;
let repos: Repos;

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-access-tokens-'));
  db = await openDatabase(path.join(tmp, 'fm.db'));
  repos = createRepos(db);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('gives a token expires - created equal to the lifetime asked for, though a second ticks during its creation', async () => {
  // Each reading of the clock is a second later than the one before: no two readings share a second.
  let now = Date.parse('2030-01-01T00:00:00.500Z');
  vi.spyOn(Date, 'now').mockImplementation(() => {
    now += 1000;
    return now;
  });
  const user = { id: 7, username: 'ann', sessionEpoch: 0 } as unknown as UserRecord;
  const { record } = await new AccessTokenService(repos).create(user, { name: 'backup', expires: 90 * 86400, readOnly: true, path: '/' });
  expect(record.expires - record.created).toBe(90 * 86400);
  expect((await repos.accessTokens.get(record.id))?.created).toBe(record.created);
});
