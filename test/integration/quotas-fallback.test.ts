/**
 * Quotas without the live index (`--no-index`: usage from a scan, forgotten after each write),
 * uploads that expire (their room is given back), and across a restart (reservations are in
 * memory: an upload created before it is checked again when its last chunk arrives, and
 * discarded if it no longer fits).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { jumpClock } from '../helpers/clock.ts';
import { adminClient, Client, createUser, startFm, tempDir, type FmServer } from '../helpers/server.ts';
import { Tus } from './tus-helpers.ts';

const servers: FmServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

describe('without the index', () => {
  it('usage comes from a scan of the scope, current after every write', async () => {
    const fm = await startFm({ args: ['--no-index'] });
    servers.push(fm);
    const admin = await adminClient(fm);
    fs.mkdirSync(path.join(fm.root, 'dan/sub'), { recursive: true });
    fs.writeFileSync(path.join(fm.root, 'dan/sub/old.bin'), Buffer.alloc(300));
    const { client } = await createUser(admin, fm, 'dan', { scope: '/dan', quota: 1000, quotaFiles: 5, perm: { create: true, modify: true } });
    expect(await client.json('/api/usage/')).toMatchObject({ total: 1000, used: 300, files: 2 });
    const put = async (p: string, size: number) => (await client.fetch(`/api/resources${p}`, { method: 'PUT', body: new Uint8Array(size) })).status;
    expect(await put('/a.bin', 600)).toBe(200);
    expect(await client.json('/api/usage/')).toMatchObject({ used: 900, files: 3 });
    expect(await put('/b.bin', 101)).toBe(507);
    expect(await put('/b.bin', 100)).toBe(200);
    expect(await put('/c.bin', 0)).toBe(200);
    expect(await put('/d.bin', 0)).toBe(507);
    expect(fs.readdirSync(path.join(fm.root, 'dan')).sort()).toEqual(['a.bin', 'b.bin', 'c.bin', 'sub']);
  });
});

describe('expired uploads', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('give their room back when they are swept', async () => {
    const fm = await startFm();
    servers.push(fm);
    const admin = await adminClient(fm);
    expect((await admin.fetch('/api/settings', { method: 'PUT', json: { uploadExpiry: 60 } })).status).toBe(200);
    fs.mkdirSync(path.join(fm.root, 'fay'));
    const { client } = await createUser(admin, fm, 'fay', { scope: '/fay', quota: 1000, perm: { create: true } });
    const tus = new Tus(client, fm.url);
    expect((await tus.create('/stale.bin', 800)).status).toBe(201);
    expect((await tus.create('/fresh.bin', 800)).status).toBe(507);
    jumpClock(61_000);
    // A creation sweeps the uploads idle longer than the expiry first.
    expect((await tus.create('/fresh.bin', 800)).status).toBe(201);
    expect((await tus.head('/stale.bin')).status).toBe(404);
  });
});

describe('across a restart', () => {
  it('an unfinished upload is checked again at its last chunk and discarded when it no longer fits', async () => {
    const home = tempDir('fm-quota-restart-');
    const first = await startFm({ home });
    const admin = await adminClient(first);
    fs.mkdirSync(path.join(first.root, 'eli'));
    const eli = await createUser(admin, first, 'eli', { scope: '/eli', quota: 1000, perm: { create: true } });
    const tus = new Tus(eli.client, first.url);
    expect((await tus.create('/late.bin', 800)).status).toBe(201);
    expect((await tus.patch('/late.bin', 0, Buffer.alloc(400))).status).toBe(204);
    await first.stop();

    const second = await startFm({ home });
    servers.push(second);
    const admin2 = new Client(second.url);
    await admin2.login('admin', first.adminPassword);
    // Written by the admin meanwhile: the upload's room is no longer there.
    expect((await admin2.fetch('/api/resources/eli/other.bin', { method: 'PUT', body: new Uint8Array(500) })).status).toBe(200);
    const client = new Client(second.url);
    await client.login('eli', eli.password);
    const again = new Tus(client, second.url);
    const last = await again.patch('/late.bin', 400, Buffer.alloc(400));
    expect([last.status, last.headers['x-fm-error']]).toEqual([507, 'quota']);
    expect((await again.head('/late.bin')).status).toBe(404);
    expect(fs.readdirSync(path.join(second.root, 'eli'))).toEqual(['other.bin']);
  });
});
