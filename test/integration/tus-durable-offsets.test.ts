/**
 * An acknowledged offset rests on the page cache within one boot of the machine, and on the
 * part's last fdatasync across a reboot (services/uploads/durability.ts). A reboot is simulated
 * by starting the server again with another boot id (the `uploadSync` option, for tests).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { LOCAL_FS } from '../../src/services/files/disk/folder-watch.ts';
import type { UploadSyncOptions } from '../../src/services/uploads/staging.ts';
import { Tus, eventually, onPostgres, sha256, sha256File, testBytes } from './tus-helpers.ts';

const MB = 1024 * 1024;

interface Stored {
  synced?: { boot: string; host: string; offset: number };
  [key: string]: unknown;
}

/** One root and data folder, served again and again as after restarts of fm or of the machine. */
class Machine {
  readonly home = tempDir();
  readonly root = fs.realpathSync(tempDir('fm-tus-root-'));
  fm?: FmServer;
  tus!: Tus;
  private password = '';

  /**
   * Starts fm again; with `uploadSync`, the staging folder counts as local whatever the machine's
   * file system (unless it says otherwise); without, fm reads the boot id and statfs itself.
   */
  async boot(uploadSync?: UploadSyncOptions): Promise<Tus> {
    await this.fm?.stop();
    this.fm = await startFm({ home: this.home, root: this.root, keep: true, uploadSync: uploadSync && { local: true, ...uploadSync } });
    if (this.password) this.fm.adminPassword = this.password;
    this.password = this.fm.adminPassword;
    this.tus = new Tus(await adminClient(this.fm), this.fm.url);
    return this.tus;
  }

  staging(): string {
    return onPostgres(this.fm!) ? path.join(this.root, '.fm-uploads') : path.join(this.home, 'uploads');
  }

  private id(virtual: string): string {
    return crypto.createHash('sha256').update(path.join(this.root, virtual)).digest('hex').slice(0, 40);
  }

  record(virtual: string): Stored {
    return JSON.parse(fs.readFileSync(path.join(this.staging(), `${this.id(virtual)}.json`), 'utf8')) as Stored;
  }

  writeRecord(virtual: string, raw: string): void {
    fs.writeFileSync(path.join(this.staging(), `${this.id(virtual)}.json`), raw);
  }

  partSize(virtual: string): number {
    return fs.statSync(path.join(this.staging(), `${this.id(virtual)}.part`)).size;
  }

  async close(): Promise<void> {
    await this.fm?.stop();
    fs.rmSync(this.home, { recursive: true, force: true });
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * Sends `bytes` from `offset` in chunks of half a MiB (past `every`, so a background fdatasync
 * starts), then empty PATCHes until one records the completed sync; returns the offset reached.
 */
async function sendUntilSynced(m: Machine, p: string, data: Buffer, offset: number, bytes: number): Promise<number> {
  const end = offset + bytes;
  for (; offset < end; offset += MB / 2) expect((await m.tus.patch(p, offset, data.subarray(offset, Math.min(end, offset + MB / 2)))).status).toBe(204);
  await eventually(async () => (await m.tus.patch(p, end, Buffer.alloc(0))).status === 204 && (m.record(p).synced?.offset ?? 0) > 0);
  return end;
}

describe('durable upload offsets', () => {
  let m: Machine;
  afterEach(async () => {
    await m.close();
  });

  it('keeps every acknowledged byte after a restart in the same boot, and cuts back to the last fdatasync after a reboot', async () => {
    m = new Machine();
    const sync = { bootId: 'boot-a', every: MB };
    let t = await m.boot(sync);
    const data = testBytes(8 * MB, 8);
    expect((await t.create('/reboot.bin', data.length)).status).toBe(201);
    expect(m.record('/reboot.bin').synced).toMatchObject({ boot: 'boot-a', offset: 0 });
    let acked = await sendUntilSynced(m, '/reboot.bin', data, 0, 2 * MB);
    // One more chunk, acknowledged but not yet recorded as synced.
    expect((await t.patch('/reboot.bin', acked, data.subarray(acked, acked + 100_000))).status).toBe(204);
    acked += 100_000;
    const synced = m.record('/reboot.bin').synced!.offset;
    expect(synced).toBeGreaterThan(0);
    expect(synced).toBeLessThan(acked);

    t = await m.boot(sync); // fm restarted, same boot: the page cache kept everything
    expect((await t.head('/reboot.bin')).headers['upload-offset']).toBe(String(acked));
    expect(m.partSize('/reboot.bin')).toBe(acked);

    t = await m.boot({ ...sync, bootId: 'boot-b' }); // the machine restarted
    const head = await t.head('/reboot.bin');
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe(String(synced));
    expect(m.partSize('/reboot.bin')).toBe(synced);
    expect(m.record('/reboot.bin').synced).toMatchObject({ boot: 'boot-b', offset: synced });
    // The client resends from there and the file is whole; the last chunk is fdatasynced and recorded before the move.
    expect((await t.patch('/reboot.bin', acked, data.subarray(acked))).status).toBe(409);
    expect((await t.patch('/reboot.bin', synced, data.subarray(synced))).status).toBe(204);
    expect(await sha256File(path.join(m.root, 'reboot.bin'))).toBe(sha256(data));
  }, 60_000);

  it('syncs several uploads at once in turn: each one gets its synced offset recorded, and every file is whole', async () => {
    m = new Machine();
    const t = await m.boot({ bootId: 'boot-a', every: MB / 2 });
    const names = ['/a.bin', '/b.bin', '/c.bin', '/d.bin', '/e.bin'];
    const data = names.map((_, i) => testBytes(2 * MB, 20 + i));
    for (const n of names) expect((await t.create(n, 2 * MB)).status).toBe(201);
    // Each sends its first MiB at once, in half-MiB chunks: five background syncs are due together.
    await Promise.all(
      names.map(async (n, i) => {
        for (let off = 0; off < MB; off += MB / 2) expect((await t.patch(n, off, data[i].subarray(off, off + MB / 2))).status).toBe(204);
      }),
    );
    // The ones that waited in line run in their turn, and the upload's next chunk records them.
    for (const n of names) {
      await eventually(async () => (await t.patch(n, MB, Buffer.alloc(0))).status === 204 && (m.record(n).synced?.offset ?? 0) > 0);
    }
    await Promise.all(names.map(async (n, i) => expect((await t.patch(n, MB, data[i].subarray(MB))).status).toBe(204)));
    for (const [i, n] of names.entries()) expect(await sha256File(path.join(m.root, n.slice(1)))).toBe(sha256(data[i]));
  }, 60_000);

  it('a PATCH after a reboot is refused at the old offset and accepted at the synced one, without a HEAD first', async () => {
    m = new Machine();
    let t = await m.boot({ bootId: 'boot-a', every: MB });
    const data = testBytes(4 * MB, 4);
    expect((await t.create('/patch-first.bin', data.length)).status).toBe(201);
    let acked = await sendUntilSynced(m, '/patch-first.bin', data, 0, 2 * MB);
    expect((await t.patch('/patch-first.bin', acked, data.subarray(acked, acked + 1000))).status).toBe(204);
    acked += 1000;
    const synced = m.record('/patch-first.bin').synced!.offset;
    expect(synced).toBeLessThan(acked);
    t = await m.boot({ bootId: 'boot-b', every: MB });
    const refused = await t.patch('/patch-first.bin', acked, data.subarray(acked));
    expect(refused.status).toBe(409);
    expect(refused.headers['upload-offset']).toBe(String(synced));
    expect((await t.patch('/patch-first.bin', synced, data.subarray(synced))).status).toBe(204);
    expect(await sha256File(path.join(m.root, 'patch-first.bin'))).toBe(sha256(data));
  }, 60_000);

  it('treats a damaged synced offset as nothing synced, and a torn record as no upload, never a 500', async () => {
    m = new Machine();
    let t = await m.boot({ bootId: 'boot-a', every: MB });
    expect((await t.create('/damaged.bin', 1000)).status).toBe(201);
    expect((await t.patch('/damaged.bin', 0, Buffer.alloc(600, 1))).status).toBe(204);
    expect((await t.create('/torn.bin', 1000)).status).toBe(201);
    expect((await t.patch('/torn.bin', 0, Buffer.alloc(600, 1))).status).toBe(204);
    await m.fm!.stop();
    const rec = m.record('/damaged.bin');
    m.writeRecord('/damaged.bin', JSON.stringify({ ...rec, synced: { boot: 7, offset: 'x' } }));
    m.writeRecord('/torn.bin', JSON.stringify(m.record('/torn.bin')).slice(0, 40));
    t = await m.boot({ bootId: 'boot-a', every: MB });
    const head = await t.head('/damaged.bin');
    expect(head.status).toBe(200);
    expect(head.headers['upload-offset']).toBe('0');
    expect(m.partSize('/damaged.bin')).toBe(0);
    expect((await t.head('/torn.bin')).status).toBe(404);
    expect((await t.patch('/torn.bin', 600, Buffer.alloc(400, 1))).status).toBe(404);
    expect((await t.upload('/torn.bin', Buffer.alloc(1000, 2))).status).toBe(204);
  }, 60_000);

  it('without a boot id every chunk is fdatasynced, and such an upload keeps its size under any boot', async () => {
    m = new Machine();
    let t = await m.boot({ bootId: null });
    expect((await t.create('/each.bin', 3000)).status).toBe(201);
    expect((await t.patch('/each.bin', 0, Buffer.alloc(1000, 3))).status).toBe(204);
    expect(m.record('/each.bin').synced).toBeUndefined();
    t = await m.boot({ bootId: 'boot-c', every: MB });
    expect((await t.head('/each.bin')).headers['upload-offset']).toBe('1000');
    expect(m.record('/each.bin').synced).toMatchObject({ boot: 'boot-c', offset: 1000 });
    // And back: a part last written under another boot is cut back, then every byte is fdatasynced again.
    expect((await t.patch('/each.bin', 1000, Buffer.alloc(1000, 3))).status).toBe(204);
    t = await m.boot({ bootId: null });
    expect((await t.head('/each.bin')).headers['upload-offset']).toBe('1000');
    expect(m.record('/each.bin').synced).toBeUndefined();
    expect((await t.patch('/each.bin', 1000, Buffer.alloc(2000, 3))).status).toBe(204);
    expect(fs.readFileSync(path.join(m.root, 'each.bin')).equals(Buffer.alloc(3000, 3))).toBe(true);
  }, 60_000);

  it('by default records the kernel boot id on a local file system; where other machines may write, fdatasyncs every chunk', async () => {
    m = new Machine();
    let t = await m.boot();
    expect((await t.create('/default.bin', 10)).status).toBe(201);
    const bootFile = '/proc/sys/kernel/random/boot_id';
    const boot = fs.existsSync(bootFile) ? fs.readFileSync(bootFile, 'utf8').trim() : undefined;
    const type = fs.statfsSync(m.staging()).type;
    const local = LOCAL_FS.has(type) || type === 0x794c7630; // overlayfs
    expect(m.record('/default.bin').synced?.boot).toBe(boot && local ? boot : undefined);
    t = await m.boot({ bootId: 'boot-n', local: false });
    expect((await t.create('/remote.bin', 10)).status).toBe(201);
    expect((await t.patch('/remote.bin', 0, Buffer.alloc(5, 1))).status).toBe(204);
    expect(m.record('/remote.bin').synced).toBeUndefined();
  });
});
