/**
 * Quotas without HTTP: the index's entry counts, a folder's usage from the index and from a scan
 * (the same figures; the scan forgotten on a file event), and the room check with reservations.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/services/context.ts';
import { FileEvents } from '../../src/services/events.ts';
import { SearchIndex } from '../../src/services/indexer/index.ts';
import { EntryStore, ROOT_ID } from '../../src/services/indexer/store.ts';
import { FolderUsage } from '../../src/services/quota-usage.ts';
import { QuotaError, QuotaService } from '../../src/services/quotas.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';

const file = (name: string, size = 1) => ({ name, size, mtimeMs: 1000, isDir: false, isLink: false, type: 'text' as const });
const dir = (name: string) => ({ name, size: 0, mtimeMs: 1000, isDir: true, isLink: false, type: '' as const });

describe('EntryStore entry counts', () => {
  it('counts every entry under a folder through additions and removals', () => {
    const s = new EntryStore();
    const a = s.add(ROOT_ID, dir('a'));
    const b = s.add(a, dir('b'));
    s.add(b, file('x'));
    s.add(b, file('y'));
    s.add(a, file('z'));
    expect([s.treeCountOf(ROOT_ID), s.treeCountOf(a), s.treeCountOf(b)]).toEqual([5, 4, 2]);
    s.remove(b);
    expect([s.treeCountOf(ROOT_ID), s.treeCountOf(a)]).toEqual([2, 1]);
  });
});

let root: string;
let data: string;
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'fm-quota-')));
  data = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-quota-data-'));
  fs.mkdirSync(path.join(root, 'alice/deep'), { recursive: true });
  fs.writeFileSync(path.join(root, 'alice/a.bin'), Buffer.alloc(100));
  fs.writeFileSync(path.join(root, 'alice/deep/b.bin'), Buffer.alloc(20));
  fs.writeFileSync(Buffer.from(`${root}/alice/\xff.bin`, 'latin1'), Buffer.alloc(3));
  fs.writeFileSync(path.join(root, 'alice/.fm-partial-1'), Buffer.alloc(1000));
  fs.writeFileSync(path.join(root, 'other.bin'), Buffer.alloc(5000));
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(data, { recursive: true, force: true });
});

describe('FolderUsage', () => {
  it('the index and a scan give the same figures: bytes and entries, temporary files and other folders left out', async () => {
    const events = new FileEvents(silentLogger);
    const index = new SearchIndex({ root, dataDir: data, skipPaths: () => [], log: silentLogger, watch: false });
    const scanned = new FolderUsage({ skip: () => false, events });
    const folder = path.join(root, 'alice');
    const expected = { bytes: 123, files: 4 };
    expect(await scanned.of(folder)).toEqual(expected);
    await index.start();
    const indexed = new FolderUsage({ index, skip: () => false, events });
    expect(indexed.peek(folder)).toEqual(expected);
    await index.close();
  });

  it('a scan is kept until a file event under the folder, then done again', async () => {
    const events = new FileEvents(silentLogger);
    const usage = new FolderUsage({ skip: () => false, events });
    const folder = path.join(root, 'alice');
    const [a, b] = await Promise.all([usage.of(folder), usage.of(folder)]);
    expect(a).toEqual(b);
    fs.writeFileSync(path.join(folder, 'new.bin'), Buffer.alloc(7));
    expect(usage.peek(folder)).toEqual({ bytes: 123, files: 4 });
    await events.emit('written', { abs: path.join(root, 'other.bin'), isDir: false });
    expect(usage.peek(folder)).toEqual({ bytes: 123, files: 4 });
    await events.emit('written', { abs: path.join(folder, 'new.bin'), isDir: false });
    expect(usage.peek(folder)).toBeUndefined();
    expect(await usage.of(folder)).toEqual({ bytes: 130, files: 5 });
  });
});

function user(quota: number, quotaFiles = 0, scope = '/alice'): UserRecord {
  return { username: 'alice', scope, quota, quotaFiles } as UserRecord;
}

describe('QuotaService', () => {
  const service = () => new QuotaService(root, new FolderUsage({ skip: () => false, events: new FileEvents(silentLogger) }));

  it('accepts a write that lands exactly on the quota and refuses one byte more with 507 quota', async () => {
    const quotas = service();
    await quotas.assertRoom(user(200), { bytes: 77, files: 1 });
    const err = await quotas.assertRoom(user(200), { bytes: 78, files: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuotaError);
    expect(err).toMatchObject({ status: 507, code: 'quota', message: 'over quota: 200B for alice, 123B used; this needs 78B more' });
  });

  it('never refuses a write that adds nothing, nor a user without a quota', async () => {
    const quotas = service();
    await quotas.assertRoom(user(10, 1), { bytes: -5, files: 0 });
    await quotas.assertRoom(user(0), { bytes: 1e12, files: 1e6 });
  });

  it('the entry quota counts entries', async () => {
    const quotas = service();
    await quotas.assertRoom(user(0, 5), { bytes: 1, files: 1 });
    await expect(quotas.assertRoom(user(0, 5), { bytes: 1, files: 2 })).rejects.toThrow('over quota: 5 files for alice, 4 used; this needs 2 more');
  });

  it('reservations: two writes cannot both take the last room; a released one frees it', async () => {
    const quotas = service();
    const [first, second] = await Promise.allSettled([quotas.reserve(user(200), { bytes: 50, files: 1 }), quotas.reserve(user(200), { bytes: 50, files: 1 })]);
    expect([first.status, second.status].sort()).toEqual(['fulfilled', 'rejected']);
    const held = (first.status === 'fulfilled' ? first.value : (second as PromiseFulfilledResult<never>).value) as { release(): void };
    await expect(quotas.assertRoom(user(200), { bytes: 50, files: 1 })).rejects.toBeInstanceOf(QuotaError);
    held.release();
    await quotas.assertRoom(user(200), { bytes: 50, files: 1 });
  });

  it('a reservation grows with a body of unknown length and stops at the quota', async () => {
    const quotas = service();
    const r = await quotas.reserve(user(200), { bytes: 0, files: 1 });
    r.cover(77);
    expect(() => r.cover(78)).toThrow(QuotaError);
    r.release();
  });

  it('a scope that does not exist yet uses nothing', async () => {
    expect(await service().usageOf(user(10, 0, '/nobody'))).toEqual({ bytes: 0, files: 0 });
  });
});
