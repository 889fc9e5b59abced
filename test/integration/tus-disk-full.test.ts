import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tus, stagedFiles, startTusFm, type TusFm } from './tus-helpers.ts';

// The upload service reads free space through one interface; this server's reports 1000 bytes.
describe('free disk space is checked at creation', () => {
  let t: TusFm;
  beforeAll(async () => {
    t = await startTusFm({ diskSpace: { freeBytes: async () => 1000 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('507 before any byte is written when the upload cannot fit', async () => {
    const c = new Tus(t.admin, t.fm.url);
    const res = await c.create('/too-big.bin', 1001);
    expect(res.status).toBe(507);
    expect(res.body).toMatch(/^507 Insufficient Storage/);
    expect(stagedFiles(t.staging)).toEqual([]);
    expect(fs.existsSync(path.join(t.fm.root, 'too-big.bin'))).toBe(false);
    expect((await c.head('/too-big.bin')).status).toBe(404);
  });

  it('accepts an upload that fits', async () => {
    const c = new Tus(t.admin, t.fm.url);
    expect((await c.upload('/fits.bin', Buffer.alloc(1000, 7))).status).toBe(204);
    expect(fs.statSync(path.join(t.fm.root, 'fits.bin')).size).toBe(1000);
  });
});
