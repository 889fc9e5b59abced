import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, tempDir } from '../helpers/server.ts';
import { spawnFm } from '../helpers/spawn.ts';
import { Tus, openPatch, sha256, sha256File, startTusFm, testBytes, type TusFm } from './tus-helpers.ts';

const MB = 1024 * 1024;

/** Resumes like a tus client: HEAD for the offset, PATCH chunks from there; 409/423 mean re-HEAD. */
async function resume(t: Tus, p: string, data: Buffer, chunk: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const head = await t.head(p);
    expect(head.status).toBe(200);
    let offset = Number(head.headers['upload-offset']);
    let retry = false;
    while (offset < data.length) {
      const res = await t.patch(p, offset, data.subarray(offset, offset + chunk));
      if (res.status === 409 || res.status === 423) {
        retry = true;
        break;
      }
      expect(res.status).toBe(204);
      offset = Number(res.headers['upload-offset']);
    }
    if (!retry) return offset;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('upload never resumed');
}

interface ClientResult {
  url: string | null;
  error?: tus.DetailedError;
}

/** Runs a tus-js-client upload to the end (or its error). */
function runUpload(source: Buffer | fs.ReadStream, options: tus.UploadOptions, control?: (u: tus.Upload) => void): Promise<ClientResult> {
  return new Promise((resolve) => {
    const upload = new tus.Upload(source, {
      ...options,
      onSuccess: () => resolve({ url: upload.url }),
      onError: (error) => resolve({ url: upload.url, error: error as tus.DetailedError }),
    });
    control?.(upload);
    upload.start();
  });
}

/** A TCP proxy that cuts the connection once, after `cutAfter` bytes from the client. */
async function flakyProxy(target: string, cutAfter: number): Promise<{ url: string; cuts: () => number; close: () => void }> {
  const { hostname, port } = new URL(target);
  let cut = 0;
  let forwarded = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d: Buffer) => {
      forwarded += d.length;
      if (cut === 0 && forwarded > cutAfter) {
        cut++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(d);
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    cuts: () => cut,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

describe('resumable uploads', () => {
  let t: TusFm;
  let raw: Tus;
  beforeAll(async () => {
    t = await startTusFm();
    raw = new Tus(t.admin, t.fm.url);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a 50 MB upload in 5 MB chunks, cut mid-PATCH, resumes to a byte-identical file', async () => {
    const data = testBytes(50 * MB, 50);
    const chunk = 5 * MB;
    expect((await raw.create('/resume/fifty.bin', data.length)).status).toBe(201);
    for (let off = 0; off < 15 * MB; off += chunk) {
      expect((await raw.patch('/resume/fifty.bin', off, data.subarray(off, off + chunk))).status).toBe(204);
    }
    // The fourth chunk: 2 MB go out, then the connection drops.
    const p = openPatch(t.fm.url, t.admin.token, '/resume/fifty.bin', 15 * MB, chunk, data.subarray(15 * MB, 17 * MB));
    await p.sent;
    p.cut();
    const end = await resume(raw, '/resume/fifty.bin', data, chunk);
    expect(end).toBe(data.length);
    expect(await sha256File(path.join(t.fm.root, 'resume/fifty.bin'))).toBe(sha256(data));
  });

  it('tus-js-client uploads a Buffer in chunks with X-Auth', async () => {
    const data = testBytes(12 * MB, 12);
    const result = await runUpload(data, {
      endpoint: `${t.fm.url}/api/tus/client/buffer.bin?override=false`,
      chunkSize: 5 * MB,
      retryDelays: [0, 200, 500],
      headers: { 'X-Auth': t.admin.token },
      metadata: { filename: 'buffer.bin', filetype: 'application/octet-stream' },
    });
    expect(result.error).toBeUndefined();
    expect(result.url).toBe(`${t.fm.url}/api/tus/client/buffer.bin`);
    expect(sha256(fs.readFileSync(path.join(t.fm.root, 'client/buffer.bin')))).toBe(sha256(data));
  });

  it('tus-js-client uploads an fs.ReadStream given its size', async () => {
    const data = testBytes(3 * MB + 17, 13);
    const src = path.join(t.fm.home, 'stream-source.bin');
    fs.writeFileSync(src, data);
    const result = await runUpload(fs.createReadStream(src), {
      endpoint: `${t.fm.url}/api/tus/client/stream.bin?override=false`,
      chunkSize: MB,
      uploadSize: data.length,
      retryDelays: [0, 200],
      headers: { 'X-Auth': t.admin.token },
    });
    expect(result.error).toBeUndefined();
    expect(sha256(fs.readFileSync(path.join(t.fm.root, 'client/stream.bin')))).toBe(sha256(data));
  });

  it('tus-js-client retries after the connection drops mid-chunk and ends with an identical file', async () => {
    const data = testBytes(20 * MB, 20);
    const proxy = await flakyProxy(t.fm.url, 7 * MB);
    try {
      const result = await runUpload(data, {
        endpoint: `${proxy.url}/api/tus/client/flaky.bin?override=false`,
        chunkSize: 5 * MB,
        retryDelays: [0, 200, 500, 1000],
        headers: { 'X-Auth': t.admin.token },
      });
      expect(result.error).toBeUndefined();
      expect(proxy.cuts()).toBe(1);
    } finally {
      proxy.close();
    }
    expect(sha256(fs.readFileSync(path.join(t.fm.root, 'client/flaky.bin')))).toBe(sha256(data));
  });

  it('tus-js-client resumes an aborted upload from its URL without resending acknowledged chunks', async () => {
    const data = testBytes(15 * MB, 15);
    const options = { chunkSize: 5 * MB, retryDelays: [0, 200], headers: { 'X-Auth': t.admin.token } };
    let firstUrl: string | null = null;
    await new Promise<void>((resolve, reject) => {
      const upload = new tus.Upload(data, {
        ...options,
        endpoint: `${t.fm.url}/api/tus/client/aborted.bin?override=false`,
        onChunkComplete: () => {
          firstUrl = upload.url;
          upload.abort().then(() => resolve(), reject);
        },
        onError: reject,
      });
      upload.start();
    });
    expect(firstUrl).toBe(`${t.fm.url}/api/tus/client/aborted.bin`);
    expect((await raw.head('/client/aborted.bin')).headers['upload-offset']).toBe(String(5 * MB));
    let firstProgress = -1;
    const result = await runUpload(data, {
      ...options,
      endpoint: `${t.fm.url}/api/tus/client/aborted.bin?override=false`,
      uploadUrl: firstUrl,
      onProgress: (sent) => {
        if (firstProgress < 0) firstProgress = sent;
      },
    });
    expect(result.error).toBeUndefined();
    expect(firstProgress).toBeGreaterThanOrEqual(5 * MB);
    expect(sha256(fs.readFileSync(path.join(t.fm.root, 'client/aborted.bin')))).toBe(sha256(data));
  });

  it('tus-js-client sees 409 for an existing file without override, and replaces it with override', async () => {
    fs.mkdirSync(path.join(t.fm.root, 'client'), { recursive: true });
    fs.writeFileSync(path.join(t.fm.root, 'client/conflict.txt'), 'old');
    const data = Buffer.from('new contents');
    const noRetryOnCreateConflict = (err: tus.DetailedError) => err.originalResponse?.getStatus() !== 409;
    const refused = await runUpload(data, {
      endpoint: `${t.fm.url}/api/tus/client/conflict.txt?override=false`,
      retryDelays: [0],
      onShouldRetry: noRetryOnCreateConflict,
      headers: { 'X-Auth': t.admin.token },
    });
    expect(refused.error?.originalResponse?.getStatus()).toBe(409);
    expect(fs.readFileSync(path.join(t.fm.root, 'client/conflict.txt'), 'utf8')).toBe('old');
    const replaced = await runUpload(data, {
      endpoint: `${t.fm.url}/api/tus/client/conflict.txt?override=true`,
      retryDelays: [0],
      headers: { 'X-Auth': t.admin.token },
    });
    expect(replaced.error).toBeUndefined();
    expect(fs.readFileSync(path.join(t.fm.root, 'client/conflict.txt'), 'utf8')).toBe('new contents');
  });

  it('tus-js-client creates an empty file with a single POST', async () => {
    const result = await runUpload(Buffer.alloc(0), {
      endpoint: `${t.fm.url}/api/tus/client/empty.txt?override=false`,
      headers: { 'X-Auth': t.admin.token },
    });
    expect(result.error).toBeUndefined();
    expect(fs.statSync(path.join(t.fm.root, 'client/empty.txt')).size).toBe(0);
  });
});

describe('uploads survive a crash of the server', () => {
  it('after kill -9 mid-PATCH and a restart, HEAD reports the bytes written and the upload completes identically', async () => {
    const home = tempDir();
    const root = tempDir('fm-tus-root-');
    const data = testBytes(24 * MB, 24);
    const chunk = 5 * MB;
    let fm = await spawnFm({ home, root, keep: true });
    try {
      const password = fm.adminPassword;
      let client = await adminClient(fm);
      let t = new Tus(client, fm.url);
      expect((await t.create('/crash/big.bin', data.length)).status).toBe(201);
      for (let off = 0; off < 2 * chunk; off += chunk) {
        expect((await t.patch('/crash/big.bin', off, data.subarray(off, off + chunk))).status).toBe(204);
      }
      // A third chunk is on its way when the server dies.
      const p = openPatch(fm.url, client.token, '/crash/big.bin', 2 * chunk, chunk, data.subarray(2 * chunk, 2 * chunk + 2 * MB));
      await p.sent;
      await fm.kill();
      p.cut();

      fm = await spawnFm({ home, root, keep: true });
      fm.adminPassword = password;
      client = await adminClient(fm);
      t = new Tus(client, fm.url);
      const head = await t.head('/crash/big.bin');
      expect(head.status).toBe(200);
      expect(head.headers['upload-length']).toBe(String(data.length));
      const offset = Number(head.headers['upload-offset']);
      expect(offset).toBeGreaterThanOrEqual(2 * chunk);
      expect(offset).toBeLessThanOrEqual(2 * chunk + 2 * MB);
      expect(await resume(t, '/crash/big.bin', data, chunk)).toBe(data.length);
      expect(await sha256File(path.join(root, 'crash/big.bin'))).toBe(sha256(data));

      // With nothing in flight, the offset after a crash is exactly what was acknowledged (a
      // length off the 1 MiB write batches: the tail below a batch is written and fsynced too).
      const acked = MB + 4321;
      expect((await t.create('/crash/exact.bin', 3 * MB)).status).toBe(201);
      expect((await t.patch('/crash/exact.bin', 0, data.subarray(0, acked))).status).toBe(204);
      await fm.kill();
      fm = await spawnFm({ home, root, keep: true });
      fm.adminPassword = password;
      t = new Tus(await adminClient(fm), fm.url);
      expect((await t.head('/crash/exact.bin')).headers['upload-offset']).toBe(String(acked));
    } finally {
      await fm.stop();
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);

  it('an upload whose last byte arrived but that was never moved into place is finished by the next HEAD', async () => {
    const home = tempDir();
    const root = fs.realpathSync(tempDir('fm-tus-root-'));
    // Staging in the data folder, as on SQLite (on PostgreSQL it is in the root: pg-tus-instances.test.ts).
    let fm = await spawnFm({ home, root, keep: true, sqlite: true });
    try {
      const password = fm.adminPassword;
      await fm.stop();
      // What a crash between the last fsync and the rename leaves behind.
      const target = path.join(root, 'late.txt');
      const id = crypto.createHash('sha256').update(target).digest('hex').slice(0, 40);
      const staging = path.join(home, 'uploads');
      fs.mkdirSync(staging, { recursive: true });
      fs.writeFileSync(path.join(staging, `${id}.part`), 'complete');
      const rec = { v: 1, id, target, virtual: '/late.txt', userId: 1, length: 8, override: false, metadata: '', createdAt: Date.now() };
      fs.writeFileSync(path.join(staging, `${id}.json`), JSON.stringify(rec));
      fm = await spawnFm({ home, root, keep: true });
      fm.adminPassword = password;
      const t = new Tus(await adminClient(fm), fm.url);
      const head = await t.head('/late.txt');
      expect(head.status).toBe(200);
      expect(head.headers).toMatchObject({ 'upload-offset': '8', 'upload-length': '8' });
      expect(fs.readFileSync(target, 'utf8')).toBe('complete');
      expect(fs.readdirSync(staging)).toEqual([]);
    } finally {
      await fm.stop();
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
