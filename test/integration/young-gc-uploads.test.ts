/**
 * Every upload path counts the bytes it receives for the young collections (services/young-gc.ts):
 * tus appends, PUT and POST /api/resources, WebDAV's PUT. The counter is replaced here, in the
 * module graph the in-process server shares with this file.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { davClient } from '../helpers/dav.ts';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';

const counted = vi.hoisted(() => ({ bytes: 0 }));
vi.mock('../../src/services/young-gc.ts', () => ({
  receivedBytes: (n: number) => {
    counted.bytes += n;
  },
}));

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});

afterAll(async () => {
  await fm.stop();
});

/** The bytes counted while `upload` runs. */
async function countedDuring(upload: () => Promise<void>): Promise<number> {
  const before = counted.bytes;
  await upload();
  return counted.bytes - before;
}

const body = Buffer.alloc(3 * 1024 * 1024 + 17, 7);

describe('bytes counted for the young collections', () => {
  it('PUT and POST /api/resources count their bodies', async () => {
    const put = await countedDuring(async () => {
      expect((await admin.fetch('/api/resources/put.bin?override=true', { method: 'PUT', body })).status).toBe(200);
    });
    expect(put).toBe(body.length);
    const post = await countedDuring(async () => {
      expect((await admin.fetch('/api/resources/post.bin', { method: 'POST', body })).status).toBe(200);
    });
    expect(post).toBe(body.length);
  });

  it("WebDAV's PUT counts its body", async () => {
    const dav = davClient(fm.url, 'admin', fm.adminPassword);
    const n = await countedDuring(async () => {
      expect((await dav('PUT', '/dav.bin', { body })).status).toBe(201);
    });
    expect(n).toBe(body.length);
  });

  it('a tus append counts its body', async () => {
    const tus = { 'Tus-Resumable': '1.0.0' };
    const created = await admin.fetch('/api/tus/tus.bin', { method: 'POST', headers: { ...tus, 'Upload-Length': String(body.length) } });
    expect(created.status).toBe(201);
    const n = await countedDuring(async () => {
      const res = await admin.fetch('/api/tus/tus.bin', {
        method: 'PATCH',
        headers: { ...tus, 'Upload-Offset': '0', 'Content-Type': 'application/offset+octet-stream' },
        body,
      });
      expect(res.status).toBe(204);
    });
    expect(n).toBe(body.length);
  });
});
