/** Share links follow file events and parse their duration (services/shares.ts, api/shares.ts, storage/repos/shares.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import { createServices, type Services } from '../../src/services/index.ts';
import { ensureSettings } from '../../src/services/setup.ts';
import { silentLogger } from '../../src/services/context.ts';
import { expireAt } from '../../src/api/shares.ts';
import { parseShareRequest } from '../../src/schemas/shares.ts';
import { sortShares, type ShareRecord } from '../../src/storage/repos/shares.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';

let tmp: string;
let root: string;
let db: Database;
let services: Services;
let alice: UserRecord;

const perm = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

async function shareOf(user: UserRecord, virtual: string) {
  const access = await services.gate.access(user, await services.repos.settings.get());
  return services.shares.create(access, virtual, { password: '', expires: 0, unit: 'hours' });
}

async function hashes(): Promise<string[]> {
  return (await services.repos.shares.list()).map((s) => s.hash);
}

beforeEach(async () => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-shares-unit-')));
  root = path.join(tmp, 'root');
  for (const d of ['alice/docs/sub', 'alice/docs2', 'alice/other']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.writeFileSync(path.join(root, 'alice/docs/sub/f.txt'), 'f');
  fs.writeFileSync(path.join(root, 'alice/file.txt'), 'v1');
  db = await openDatabase(path.join(tmp, 'data', 'fm.db'));
  services = createServices(db, {
    root,
    tokenLifetime: 7200,
    auth: { noauth: false, trustedProxies: [] },
    log: silentLogger,
    dataDir: path.join(tmp, 'data'),
  });
  await ensureSettings(services.repos);
  alice = await services.users.create({ data: { username: 'alice', password: 'x', scope: '/alice', perm }, skipPolicy: true });
});

afterEach(async () => {
  await db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('lifecycle: removed and moved paths take their links with them', () => {
  it('removing a folder removes links at and under it, not siblings with a common prefix', async () => {
    const docs = await shareOf(alice, '/docs');
    const sub = await shareOf(alice, '/docs/sub/f.txt');
    const docs2 = await shareOf(alice, '/docs2');
    await services.events.emit('removed', { abs: path.join(root, 'alice/docs'), isDir: true });
    const left = await hashes();
    expect(left).not.toContain(docs.hash);
    expect(left).not.toContain(sub.hash);
    expect(left).toContain(docs2.hash);
  });

  it('moving a folder away removes links under it; a move onto a shared path removes that link too', async () => {
    const sub = await shareOf(alice, '/docs/sub');
    const other = await shareOf(alice, '/other');
    const file = await shareOf(alice, '/file.txt');
    await services.events.emit('moved', { fromAbs: path.join(root, 'alice/docs'), toAbs: path.join(root, 'alice/moved'), isDir: true });
    expect(await hashes()).not.toContain(sub.hash);
    await services.events.emit('moved', { fromAbs: path.join(root, 'alice/new.txt'), toAbs: path.join(root, 'alice/file.txt'), isDir: false });
    expect(await hashes()).not.toContain(file.hash);
    expect(await hashes()).toContain(other.hash);
  });

  it('an admin deleting the parent folder from a wider scope removes the link as well', async () => {
    const sub = await shareOf(alice, '/docs/sub');
    await services.events.emit('removed', { abs: path.join(root, 'alice'), isDir: true });
    expect(await hashes()).not.toContain(sub.hash);
  });
});

describe('lifecycle: saving a shared file through fm keeps its link', () => {
  it('an atomic save (new inode) reported by fm keeps the link working', async () => {
    const s = await shareOf(alice, '/file.txt');
    expect((await services.shares.open(s.hash, '/', { ip: '1' })).target.stat?.size).toBe(2);
    const tmpFile = path.join(root, 'alice/.tmp-save');
    fs.writeFileSync(tmpFile, 'version 2');
    fs.renameSync(tmpFile, path.join(root, 'alice/file.txt'));
    await services.events.emit('written', { abs: path.join(root, 'alice/file.txt'), isDir: false });
    expect((await services.shares.open(s.hash, '/', { ip: '1' })).target.stat?.size).toBe(9);
  });

  it('a replacement fm never reported answers 404 and deletes the link', async () => {
    const s = await shareOf(alice, '/file.txt');
    fs.rmSync(path.join(root, 'alice/file.txt'));
    fs.writeFileSync(path.join(root, 'alice/file.txt'), 'imposter');
    await expect(services.shares.open(s.hash, '/', { ip: '1' })).rejects.toMatchObject({ status: 404 });
    expect(await hashes()).not.toContain(s.hash);
  });
});

describe('lifecycle: users', () => {
  it('deleting a user removes their links', async () => {
    const s = await shareOf(alice, '/docs');
    await services.onUserDeleted?.(alice);
    expect(await hashes()).not.toContain(s.hash);
  });
});

describe('share duration', () => {
  it('parses numbers and numeric strings, units, the body over the query', () => {
    expect(parseShareRequest({ expires: '3', unit: 'days' })).toEqual({ password: '', expires: 3, unit: 'days' });
    expect(parseShareRequest({}, { expires: '5', unit: 'minutes' })).toEqual({ password: '', expires: 5, unit: 'minutes' });
    expect(parseShareRequest({ expires: 7 }, { expires: '5', unit: 'minutes' })).toEqual({ password: '', expires: 7, unit: 'minutes' });
    expect(parseShareRequest(undefined)).toEqual({ password: '', expires: 0, unit: 'hours' });
    expect(() => parseShareRequest({ expires: 2147483648 })).toThrow(/at most/);
    expect(() => parseShareRequest({ unit: 'fortnights' })).toThrow(/unit/);
    expect(() => parseShareRequest([])).toThrow(/object/);
  });

  it('computes the expiry in epoch seconds, 0 for permanent', () => {
    expect(expireAt({ expires: 0, unit: 'days' }, 1000)).toBe(0);
    expect(expireAt({ expires: 2, unit: 'minutes' }, 1000)).toBe(1120);
    expect(expireAt({ expires: 2147483647, unit: 'days' }, 0)).toBe(2147483647 * 86400);
  });

  it('sorts permanent links first, then by expiry', () => {
    const mk = (hash: string, expire: number): ShareRecord => ({ hash, expire, path: '/', userID: 1, password_hash: '', token: '' });
    expect(sortShares([mk('a', 50), mk('b', 0), mk('c', 10), mk('d', 0)]).map((s) => s.hash)).toEqual(['b', 'd', 'c', 'a']);
  });
});

describe('repository: expiry', () => {
  it('an expired link is deleted when read', async () => {
    const s = await services.repos.shares.create({ path: '/docs', userID: alice.id, expire: Math.floor(Date.now() / 1000) - 1, password_hash: '', token: '' });
    expect(await services.repos.shares.get(s.hash)).toBeUndefined();
    expect(await db.ns('shares').get(`s:${s.hash}`)).toBeUndefined();
  });
});
