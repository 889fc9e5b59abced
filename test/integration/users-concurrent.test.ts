/**
 * Users created by two connections at once (the CLI beside a running fm, two instances on
 * PostgreSQL) get distinct ids and keep distinct names: ids and names are claimed in one
 * statement each (storage/repos/users.ts), not read and then written. On SQLite, or on the run's
 * PostgreSQL cluster when FM_TEST_DATABASE=postgres.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/errors.ts';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import { UsersRepo } from '../../src/storage/repos/users.ts';
import { testDatabase } from '../helpers/postgres.ts';
import { tempDir } from '../helpers/server.ts';

let home: string;
let one: Database;
let two: Database;

beforeEach(async () => {
  home = tempDir('fm-users-concurrent-');
  const location = await testDatabase(home);
  one = await openDatabase(location, { dataDir: home });
  two = await openDatabase(location, { dataDir: home });
});

afterEach(async () => {
  await Promise.all([one.close(), two.close()]);
  fs.rmSync(home, { recursive: true, force: true });
});

const user = (username: string, admin = false) => UserDataSchema.parse({ username, password: 'hash', scope: `/${username}`, perm: { admin } });

describe('users created from two connections at once', () => {
  it('get distinct ids, and each name finds its own record through either connection', async () => {
    const a = new UsersRepo(one);
    const b = new UsersRepo(two);
    await a.create(user('admin', true));
    const names = Array.from({ length: 10 }, (_, i) => [`a${i}`, `b${i}`]).flat();
    const created = await Promise.all(names.map((n, i) => (i % 2 === 0 ? a : b).create(user(n))));
    expect(new Set(created.map((u) => u.id)).size).toBe(names.length);
    for (const repo of [a, b]) {
      await one.refresh();
      await two.refresh();
      const listed = await repo.list();
      expect(listed.map((u) => u.username).sort()).toEqual(['admin', ...names].sort());
      for (const u of created) expect((await repo.getByUsername(u.username))?.id).toBe(u.id);
    }
  });

  it('one name claimed by both at once: one wins, the other is told it is taken, and one record remains', async () => {
    const a = new UsersRepo(one);
    const b = new UsersRepo(two);
    const results = await Promise.allSettled([a.create(user('carol')), b.create(user('Carol'))]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected');
    expect((lost as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    await one.refresh();
    const listed = await a.list();
    expect(listed).toHaveLength(1);
    expect((await a.getByUsername('CAROL'))?.id).toBe(listed[0].id);
  });

  it('a deleted user’s id is never handed out again, even when the sequence lags behind or users are replaced', async () => {
    const a = new UsersRepo(one);
    const b = new UsersRepo(two);
    const admin = await a.create(user('admin', true));
    const gone = await a.create(user('gone'));
    await a.delete(gone.id);
    // What two processes writing the sequence out of order can leave: it points below a claimed id.
    await one.ns('users').set('seq', admin.id);
    await two.refresh();
    const next = await b.create(user('next'));
    expect(next.id).toBeGreaterThan(gone.id);
    // An import replaces every user: the ids claimed before it stay claimed.
    await a.replaceAll([(await a.get(admin.id))!]);
    await one.ns('users').set('seq', admin.id);
    await two.refresh();
    expect((await b.create(user('after'))).id).toBeGreaterThan(next.id);
  });

  it('a rename to a name another connection holds is refused, and a stale name entry is taken over', async () => {
    const a = new UsersRepo(one);
    const b = new UsersRepo(two);
    const dave = await a.create(user('dave'));
    const erin = await b.create(user('erin'));
    await one.refresh();
    await expect(a.update({ ...(await a.get(dave.id))!, username: 'ERIN' })).rejects.toBeInstanceOf(ConflictError);
    // A name entry whose user is gone (a crash between two writes) does not block the name.
    await one.ns('users').set('n:frank', 999);
    await two.refresh();
    const renamed = await b.update({ ...(await b.get(erin.id))!, username: 'frank' });
    expect(renamed.username).toBe('frank');
    expect((await b.getByUsername('frank'))?.id).toBe(erin.id);
    expect(await b.getByUsername('erin')).toBeUndefined();
  });
});
