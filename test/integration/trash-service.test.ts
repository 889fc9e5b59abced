/**
 * The trash service in process (docs/trash.md): hooks fire once per delete and an upload event
 * per restore; expired items are purged and none while the trash is off; a file system mounted
 * inside the root gets its own trash (a rename, never a copy); a failed move leaves the item in
 * place and no record behind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/services/context.ts';
import { deleteResource } from '../../src/services/files/operations.ts';
import type { HookContext, HookRunner } from '../../src/services/hooks.ts';
import { createServices, type Services } from '../../src/services/index.ts';
import { ensureSettings } from '../../src/services/setup.ts';
import { TrashService } from '../../src/services/trash/index.ts';
import { openDatabase, type Database } from '../../src/storage/db.ts';
import type { UserRecord } from '../../src/storage/repos/users.ts';
import { mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';

const isRoot = process.getuid?.() === 0;
const perm = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };
const DAY = 86_400_000;

let tmp: string;
let root: string;
let db: Database;
let services: Services;
let trash: TrashService;
let alice: UserRecord;
let hooked: string[];

const recorder: HookRunner = {
  around: async <T>(ctx: HookContext, op: () => Promise<T>) => {
    hooked.push(`before_${ctx.event} ${path.relative(root, ctx.file)}`);
    const r = await op();
    hooked.push(`after_${ctx.event} ${path.relative(root, ctx.file)}`);
    return r;
  },
};

async function remove(virtual: string, user = alice) {
  const access = await services.gate.access(user, await services.repos.settings.get());
  await deleteResource({ gate: services.gate, events: services.events, hooks: recorder, trash, quotas: services.quotas }, access, virtual);
}

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-trash-'));
  root = path.join(tmp, 'root');
  fs.mkdirSync(path.join(root, 'alice'), { recursive: true });
  db = await openDatabase(path.join(tmp, 'data', 'fm.db'));
  services = createServices(db, { root, tokenLifetime: 7200, auth: { noauth: false, trustedProxies: [] }, log: silentLogger, dataDir: path.join(tmp, 'data') });
  await ensureSettings(services.repos);
  alice = await services.users.create({ data: { username: 'alice', password: 'x', scope: '/alice', perm }, skipPolicy: true });
  trash = new TrashService({ gate: services.gate, hooks: recorder, events: services.events, repos: services.repos, log: silentLogger });
  hooked = [];
});

afterEach(async () => {
  await db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('hooks and events', () => {
  it('delete hooks fire once per delete; a restore fires the upload hooks and announces the file', async () => {
    fs.writeFileSync(path.join(root, 'alice/a.txt'), 'a');
    const written: string[] = [];
    const removed: string[] = [];
    services.events.on('written', (e) => void written.push(path.relative(root, e.abs)));
    services.events.on('removed', (e) => void removed.push(path.relative(root, e.abs)));
    await remove('/a.txt');
    expect(hooked).toEqual(['before_delete alice/a.txt', 'after_delete alice/a.txt']);
    expect(removed).toEqual(['alice/a.txt']);
    const [item] = await trash.list(alice);
    hooked = [];
    expect(await trash.restoreItem(alice, item.id)).toBe('/a.txt');
    expect(hooked).toEqual(['before_upload alice/a.txt', 'after_upload alice/a.txt']);
    expect(written).toEqual(['alice/a.txt']);
  });
});

describe('background purge', () => {
  it('purges items older than the retention, keeps younger ones, and purges nothing while the trash is off', async () => {
    for (const n of ['old.txt', 'new.txt']) fs.writeFileSync(path.join(root, 'alice', n), n);
    await remove('/old.txt');
    const [old] = await trash.list(alice);
    // Ten days ago, by its record.
    const info = path.join(root, '.fm-trash', String(alice.id), 'info', `${old.id}.json`);
    fs.writeFileSync(info, JSON.stringify({ ...JSON.parse(fs.readFileSync(info, 'utf8')), deleted: Date.now() - 10 * DAY }));
    await remove('/new.txt');

    const settings = await services.repos.settings.get();
    await services.repos.settings.save({ ...settings, trashRetention: 0 });
    expect(await trash.purgeExpired()).toBe(0);
    await services.repos.settings.save({ ...settings, trashRetention: 7 * 86_400 });
    expect(await trash.purgeExpired()).toBe(1);
    expect((await trash.list(alice)).map((i) => i.name)).toEqual(['new.txt']);
    expect(await trash.purgeExpired(Date.now() + 8 * DAY)).toBe(1);
    expect(await trash.list(alice)).toEqual([]);
  });

  it("a deleted user's trash goes with them", async () => {
    fs.writeFileSync(path.join(root, 'alice/a.txt'), 'a');
    await remove('/a.txt');
    await trash.userDeleted(alice);
    expect(fs.readdirSync(path.join(root, '.fm-trash', String(alice.id), 'files'))).toEqual([]);
  });
});

describe('crash safety', () => {
  it('a move that fails leaves the item in place and no record', async () => {
    fs.mkdirSync(path.join(root, 'alice/d'));
    fs.writeFileSync(path.join(root, 'alice/d/f.txt'), 'f');
    fs.writeFileSync(path.join(root, 'alice/x.txt'), 'x');
    await remove('/x.txt');
    // The bin's files folder made read-only: the rename into it fails (root ignores modes, so replace it by a file).
    const files = path.join(root, '.fm-trash', String(alice.id), 'files');
    fs.rmSync(files, { recursive: true });
    fs.writeFileSync(files, 'not a folder');
    await expect(remove('/d')).rejects.toThrow();
    expect(fs.readFileSync(path.join(root, 'alice/d/f.txt'), 'utf8')).toBe('f');
    expect(fs.readdirSync(path.join(root, '.fm-trash', String(alice.id), 'info'))).toHaveLength(1);
  });
});

describe.skipIf(!isRoot)('a file system mounted inside the root (needs root to mount a tmpfs; skipped otherwise)', () => {
  let disk: Tmpfs;
  beforeEach(() => {
    disk = mountTmpfs(path.join(root, 'alice', 'usb'), '4m');
  });
  afterEach(() => disk.unmount());

  it('gets its own trash at the top of the mount, hidden there too; the item is renamed, never copied', async () => {
    fs.mkdirSync(path.join(disk.dir, 'photos'));
    fs.writeFileSync(path.join(disk.dir, 'photos/p.jpg'), 'jpeg');
    const ino = fs.statSync(path.join(disk.dir, 'photos/p.jpg')).ino;
    // A new service finds the mount (as after a restart) and protects its trash folder.
    trash = new TrashService({ gate: services.gate, hooks: recorder, events: services.events, repos: services.repos, log: silentLogger });
    await remove('/usb/photos/p.jpg');
    const [item] = await trash.list(alice);
    const inTrash = path.join(disk.dir, '.fm-trash', String(alice.id), 'files', item.id);
    expect(fs.statSync(inTrash).ino).toBe(ino);
    expect(fs.existsSync(path.join(root, '.fm-trash', String(alice.id), 'files', item.id))).toBe(false);
    expect(services.gate.isProtected(path.join(disk.dir, '.fm-trash'))).toBe(true);
    expect(await trash.restoreItem(alice, item.id)).toBe('/usb/photos/p.jpg');
    expect(fs.statSync(path.join(disk.dir, 'photos/p.jpg')).ino).toBe(ino);
  });
});
