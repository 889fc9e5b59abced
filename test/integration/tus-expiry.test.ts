import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jumpClock } from '../helpers/clock.ts';
import { Tus, stagedFiles, startTusFm, type TusFm } from './tus-helpers.ts';

describe('stale partial uploads expire', () => {
  let t: TusFm;
  beforeAll(async () => {
    t = await startTusFm();
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('defaults to 24 hours, announced in Upload-Expires', async () => {
    const settings = await t.admin.json<{ uploadExpiry: number }>('/api/settings');
    expect(settings.uploadExpiry).toBe(24 * 60 * 60);
    const c = new Tus(t.admin, t.fm.url);
    const res = await c.create('/expires.bin', 10);
    const expires = Date.parse(res.headers['upload-expires'] as string);
    expect(expires - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    expect((await c.remove('/expires.bin')).status).toBe(204);
  });

  it('removes uploads idle longer than settings.uploadExpiry, with their staged bytes', async () => {
    const put = await t.admin.fetch('/api/settings', { method: 'PUT', json: { uploadExpiry: 60 } });
    expect(put.status).toBe(200);
    const c = new Tus(t.admin, t.fm.url);
    expect((await c.create('/stale.bin', 10)).status).toBe(201);
    expect((await c.patch('/stale.bin', 0, '12345')).status).toBe(204);
    expect(stagedFiles(t.staging)).toHaveLength(2);
    // A minute of slack after the jump: a loaded machine may pause between two requests.
    jumpClock(61_000);
    // A new creation sweeps the staging folder when the last sweep is older than the expiry.
    expect((await c.create('/fresh.bin', 10)).status).toBe(201);
    expect(stagedFiles(t.staging)).toHaveLength(2);
    expect((await c.head('/stale.bin')).status).toBe(404);
    expect((await c.head('/fresh.bin')).status).toBe(200);
    expect(fs.existsSync(path.join(t.fm.root, 'stale.bin'))).toBe(false);
  });

  it('treats an expired upload as gone even before a sweep', async () => {
    const c = new Tus(t.admin, t.fm.url);
    expect((await c.create('/idle.bin', 4)).status).toBe(201);
    jumpClock(61_000);
    expect((await c.patch('/idle.bin', 0, 'abcd')).status).toBe(404);
    expect(fs.existsSync(path.join(t.fm.root, 'idle.bin'))).toBe(false);
  });

  it('refuses an expiry below one second', async () => {
    const put = await t.admin.fetch('/api/settings', { method: 'PUT', json: { uploadExpiry: 0 } });
    expect(put.status).toBe(400);
  });
});
