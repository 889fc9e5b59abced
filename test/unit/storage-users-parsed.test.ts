/** Users are parsed once per memo generation (storage/repos/users.ts): a change is still seen at once, and callers never share an object. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserDataSchema } from '../../src/schemas/user.ts';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import { UsersRepo } from '../../src/storage/repos/users.ts';

let tmp: string;
let server: Database;
let cli: Database;
let id: number;

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-users-parsed-'));
  server = await openDatabase(path.join(tmp, 'fm.db'));
  cli = await openDatabase(path.join(tmp, 'fm.db'));
  ({ id } = await new UsersRepo(server).create(UserDataSchema.parse({ username: 'alice', password: 'hash', scope: '/alice' })));
});

afterEach(async () => {
  await Promise.all([server.close(), cli.close()]);
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the user read on every request', () => {
  it('comes as a fresh copy each time: a caller changing its copy changes nothing for the next', async () => {
    const repo = new UsersRepo(server);
    await repo.get(id); // parsed and kept
    const first = (await repo.get(id))!;
    first.scope = '/changed';
    first.perm.admin = true;
    first.rules.push({ regex: false, allow: false, path: '/x', regexp: { raw: '' } });
    const second = (await repo.get(id))!;
    expect(second.scope).toBe('/alice');
    expect(second.perm.admin).toBe(false);
    expect(second.rules).toEqual([]);
  });

  it('shares no nested object or array with the kept record, whichever read handed it out', async () => {
    const repo = new UsersRepo(server);
    const full = (await repo.get(id))!;
    await repo.update({
      ...full,
      commands: ['ls'],
      rules: [{ regex: true, allow: false, path: '', regexp: { raw: '\\.secret$' } }],
      keptSession: { jti: 'j', epoch: 0 },
    });
    const expected = structuredClone((await repo.get(id))!);
    // Every object and array in what a read hands out (the read that parses and keeps, and a
    // read of the kept record), changed in place: the next read must not see any of it.
    const spoil = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) spoil(item);
        value.push('spoiled');
      } else if (value !== null && typeof value === 'object') {
        const fields = value as Record<string, unknown>;
        for (const key of Object.keys(fields)) {
          spoil(fields[key]);
          if (typeof fields[key] !== 'object') fields[key] = 'spoiled';
        }
      }
    };
    await server.refresh();
    const afterWrite = (await repo.get(id))!; // parsed and kept by this read
    spoil(afterWrite);
    const kept = (await repo.get(id))!; // a copy of the kept record
    expect(kept).toEqual(expected);
    spoil(kept);
    expect(await repo.get(id)).toEqual(expected);
  });

  it('shows a change written by this process or by another (after the refresh every request makes), and a deletion', async () => {
    const repo = new UsersRepo(server);
    await repo.get(id);
    await repo.update({ ...(await repo.get(id))!, scope: '/mine' });
    expect((await repo.get(id))?.scope).toBe('/mine');

    const other = new UsersRepo(cli);
    await other.update({ ...(await other.get(id))!, hideDotfiles: true, sessionEpoch: 7 });
    await server.refresh();
    expect(await repo.get(id)).toMatchObject({ hideDotfiles: true, sessionEpoch: 7 });

    await other.create(UserDataSchema.parse({ username: 'bob', password: 'hash', perm: { admin: true } }));
    await other.delete(id);
    await server.refresh();
    expect(await repo.get(id)).toBeUndefined();
  });
});
