import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OFFSET_TYPE, Tus, eventually, onPostgres, openPatch, raw, sha256, stagedFiles, startTusFm, testBytes, type TusFm } from './tus-helpers.ts';

describe('tus 1.0 on /api/tus/{path}', () => {
  let t: TusFm;
  let tus: Tus;
  beforeAll(async () => {
    t = await startTusFm();
    tus = new Tus(t.admin, t.fm.url);
  });
  afterAll(async () => {
    await t.close();
  });
  const onDisk = (p: string) => path.join(t.fm.root, p);

  describe('creation, offsets and completion', () => {
    it('creates an upload at the target path and answers 201 with that path as Location', async () => {
      const res = await tus.create('/docs/a.txt', 11, { override: false });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('/api/tus/docs/a.txt');
      expect(res.headers['tus-resumable']).toBe('1.0.0');
      expect(res.headers['upload-offset']).toBe('0');
      expect(Date.parse(res.headers['upload-expires'] as string)).toBeGreaterThan(Date.now());
      const head = await tus.head('/docs/a.txt');
      expect(head.status).toBe(200);
      expect(head.headers).toMatchObject({ 'upload-offset': '0', 'upload-length': '11', 'cache-control': 'no-store' });
    });

    it('appends chunks, reports the offset, and moves the file into place with the last byte', async () => {
      const first = await tus.patch('/docs/a.txt', 0, 'hello ');
      expect(first.status).toBe(204);
      expect(first.headers['upload-offset']).toBe('6');
      expect((await tus.head('/docs/a.txt')).headers['upload-offset']).toBe('6');
      expect(fs.existsSync(onDisk('docs/a.txt'))).toBe(false);
      const last = await tus.patch('/docs/a.txt', 6, 'world');
      expect(last.status).toBe(204);
      expect(last.headers['upload-offset']).toBe('11');
      expect(fs.readFileSync(onDisk('docs/a.txt'), 'utf8')).toBe('hello world');
      // The upload is over: nothing left to resume.
      expect((await tus.head('/docs/a.txt')).status).toBe(404);
    });

    it('gives new files the configured file mode', async () => {
      expect((await tus.upload('/mode.bin', Buffer.from('x'))).status).toBe(204);
      expect(fs.statSync(onDisk('mode.bin')).mode & 0o777).toBe(0o640);
    });

    it('creates a zero-length file at creation (tus-js-client sends no PATCH for it)', async () => {
      const res = await tus.create('/empty.txt', 0);
      expect(res.status).toBe(201);
      expect(fs.statSync(onDisk('empty.txt')).size).toBe(0);
    });

    it('accepts names that need escaping and returns an escaped Location that works', async () => {
      const res = await tus.create('/sp%20ace%20%C3%A9%23.txt', 3);
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe('/api/tus/sp%20ace%20%C3%A9%23.txt');
      expect((await tus.patch(res.headers.location!.slice('/api/tus'.length), 0, 'abc')).status).toBe(204);
      expect(fs.readFileSync(onDisk('sp ace é#.txt'), 'utf8')).toBe('abc');
    });

    it('works without Tus-Resumable (filebrowser clients) and refuses another protocol version with 412', async () => {
      const noHeader = await raw(t.fm.url, 'POST', '/api/tus/nohdr.txt', { 'X-Auth': t.admin.token, 'Upload-Length': '1' });
      expect(noHeader.status).toBe(201);
      const other = await raw(t.fm.url, 'POST', '/api/tus/v2.txt', { 'X-Auth': t.admin.token, 'Upload-Length': '1', 'Tus-Resumable': '0.2.2' });
      expect(other.status).toBe(412);
      expect(other.headers['tus-version']).toBe('1.0.0');
    });

    it('advertises the protocol on OPTIONS without a login', async () => {
      const res = await raw(t.fm.url, 'OPTIONS', '/api/tus');
      expect(res.status).toBe(204);
      expect(res.headers['tus-version']).toBe('1.0.0');
      expect(res.headers['tus-extension']).toBe('creation,termination,expiration');
    });

    it('accepts PATCH and DELETE sent as POST with X-HTTP-Method-Override', async () => {
      await tus.create('/override-method.txt', 2);
      const res = await raw(
        t.fm.url,
        'POST',
        '/api/tus/override-method.txt',
        {
          'X-Auth': t.admin.token,
          'X-HTTP-Method-Override': 'PATCH',
          'Upload-Offset': '0',
          'Content-Type': OFFSET_TYPE,
        },
        'ok',
      );
      expect(res.status).toBe(204);
      expect(fs.readFileSync(onDisk('override-method.txt'), 'utf8')).toBe('ok');
    });

    it('needs a login', async () => {
      expect((await raw(t.fm.url, 'POST', '/api/tus/anon.txt', { 'Upload-Length': '1' })).status).toBe(401);
      expect((await raw(t.fm.url, 'HEAD', '/api/tus/docs/a.txt')).status).toBe(401);
    });
  });

  describe('creation refusals', () => {
    it('400 on a missing, negative or non-numeric Upload-Length, or a deferred length', async () => {
      for (const len of ['', '-1', 'abc', '1.5', '0x10', '1e3']) {
        const res = await tus.create('/bad-length.txt', len);
        expect(res.status, `Upload-Length "${len}"`).toBe(400);
      }
      expect((await tus.create('/bad-length.txt', 1, { headers: { 'Upload-Defer-Length': '1' } })).status).toBe(400);
      expect(fs.existsSync(onDisk('bad-length.txt'))).toBe(false);
    });

    it('400 when the target is a folder (existing, or named with a trailing slash)', async () => {
      fs.mkdirSync(onDisk('a-folder'));
      expect((await tus.create('/a-folder', 1)).status).toBe(400);
      expect((await tus.create('/a-folder', 1, { override: true })).status).toBe(400);
      expect((await tus.create('/new-folder/', 1)).status).toBe(400);
    });

    it('403 on the root folder itself', async () => {
      expect((await raw(t.fm.url, 'POST', '/api/tus/', { 'X-Auth': t.admin.token, 'Upload-Length': '1' })).status).toBe(403);
      expect((await raw(t.fm.url, 'POST', '/api/tus', { 'X-Auth': t.admin.token, 'Upload-Length': '1' })).status).toBe(403);
    });

    it('409 when the file exists and override is not asked for', async () => {
      fs.writeFileSync(onDisk('exists.txt'), 'old');
      expect((await tus.create('/exists.txt', 3)).status).toBe(409);
      expect((await tus.create('/exists.txt', 3, { override: false })).status).toBe(409);
      expect(fs.readFileSync(onDisk('exists.txt'), 'utf8')).toBe('old');
    });

    it('413 past the instance maximum upload size, advertised as Tus-Max-Size', async () => {
      const put = await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 100 } });
      expect(put.status).toBe(200);
      try {
        expect((await tus.create('/big.bin', 101)).status).toBe(413);
        expect((await tus.create('/small.bin', 100)).status).toBe(201);
        expect((await raw(t.fm.url, 'OPTIONS', '/api/tus')).headers['tus-max-size']).toBe('100');
      } finally {
        await t.admin.fetch('/api/settings', { method: 'PUT', json: { maxUploadSize: 0 } });
      }
    });
  });

  describe('override', () => {
    it('replaces the old file only when the last byte arrives, keeping its mode', async () => {
      fs.writeFileSync(onDisk('replace.txt'), 'old contents');
      fs.chmodSync(onDisk('replace.txt'), 0o604);
      expect((await tus.create('/replace.txt', 8, { override: true })).status).toBe(201);
      expect((await tus.patch('/replace.txt', 0, 'new ')).status).toBe(204);
      expect(fs.readFileSync(onDisk('replace.txt'), 'utf8')).toBe('old contents');
      expect((await tus.patch('/replace.txt', 4, 'data')).status).toBe(204);
      expect(fs.readFileSync(onDisk('replace.txt'), 'utf8')).toBe('new data');
      expect(fs.statSync(onDisk('replace.txt')).mode & 0o777).toBe(0o604);
    });

    it('a second creation by the same user restarts the upload from zero', async () => {
      await tus.create('/restart.txt', 4);
      await tus.patch('/restart.txt', 0, 'ab');
      expect((await tus.create('/restart.txt', 3)).status).toBe(201);
      const head = await tus.head('/restart.txt');
      expect(head.headers).toMatchObject({ 'upload-offset': '0', 'upload-length': '3' });
    });
  });

  describe('chunk refusals', () => {
    it('415 when Content-Type is not application/offset+octet-stream', async () => {
      await tus.create('/ctype.txt', 4);
      for (const type of ['application/octet-stream', 'text/plain', '']) {
        const res = await tus.patch('/ctype.txt', 0, 'abcd', { 'Content-Type': type });
        expect(res.status, `Content-Type "${type}"`).toBe(415);
      }
      expect((await tus.head('/ctype.txt')).headers['upload-offset']).toBe('0');
    });

    it('400 on a malformed Upload-Offset', async () => {
      for (const off of ['', '-1', 'x']) expect((await tus.patch('/ctype.txt', off, 'a')).status).toBe(400);
    });

    it('409 on an offset that is not the current one, with the current offset', async () => {
      await tus.patch('/ctype.txt', 0, 'ab');
      const behind = await tus.patch('/ctype.txt', 0, 'ab');
      expect(behind.status).toBe(409);
      expect(behind.headers['upload-offset']).toBe('2');
      expect((await tus.patch('/ctype.txt', 3, 'd')).status).toBe(409);
      expect((await tus.head('/ctype.txt')).headers['upload-offset']).toBe('2');
    });

    it('404 when there is no upload for the path', async () => {
      expect((await tus.patch('/never-created.txt', 0, 'a')).status).toBe(404);
      expect((await tus.head('/never-created.txt')).status).toBe(404);
      expect((await tus.remove('/never-created.txt')).status).toBe(404);
    });

    it('DOS (ffv3-7h97-993q): 413 for a chunk past the declared length, and nothing is written past the end', async () => {
      await tus.create('/declared.bin', 10);
      expect((await tus.patch('/declared.bin', 0, 'abcd')).status).toBe(204);
      const over = await tus.patch('/declared.bin', 4, 'efghijklmnop');
      expect(over.status).toBe(413);
      expect((await tus.head('/declared.bin')).headers['upload-offset']).toBe('4');
      // Without Content-Length (chunked), the excess is found while streaming and the chunk is rolled back.
      const chunked = await new Promise<number>((resolve, reject) => {
        const url = new URL(t.fm.url);
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            method: 'PATCH',
            path: '/api/tus/declared.bin',
            headers: { 'X-Auth': t.admin.token, 'Upload-Offset': '4', 'Content-Type': OFFSET_TYPE, 'Transfer-Encoding': 'chunked' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write('efgh');
        req.end('ijklmnop');
      });
      expect(chunked).toBe(413);
      expect((await tus.head('/declared.bin')).headers['upload-offset']).toBe('4');
      const staged = path.join(t.staging, stagedFiles(t.staging).find((n) => n.endsWith('.part') && fs.statSync(path.join(t.staging, n)).size === 4)!);
      expect(fs.readFileSync(staged, 'utf8')).toBe('abcd');
      expect((await tus.patch('/declared.bin', 4, 'efghijklmn'.slice(0, 6))).status).toBe(204);
      expect(fs.readFileSync(onDisk('declared.bin'), 'utf8')).toBe('abcdefghij');
    });

    it('423 for a second PATCH while one is writing; the first completes untouched', async () => {
      const data = testBytes(256 * 1024, 7);
      await tus.create('/locked.bin', data.length);
      const first = openPatch(t.fm.url, t.admin.token, '/locked.bin', 0, data.length, data.subarray(0, 1000));
      await first.sent;
      // The server has the first request once bytes are staged.
      await eventually(async () => (await tus.head('/locked.bin')).headers['upload-offset'] === '1000');
      const second = await tus.patch('/locked.bin', 1000, data.subarray(1000));
      expect(second.status).toBe(423);
      const res = await first.finish(data.subarray(1000));
      expect(res.status).toBe(204);
      expect(sha256(fs.readFileSync(onDisk('locked.bin')))).toBe(sha256(data));
    });
  });

  describe('termination', () => {
    it('DELETE removes the partial data and ends the upload', async () => {
      const before = stagedFiles(t.staging);
      await tus.create('/terminate.bin', 100);
      await tus.patch('/terminate.bin', 0, Buffer.alloc(50, 1));
      expect(stagedFiles(t.staging).length).toBe(before.length + 2);
      const res = await tus.remove('/terminate.bin');
      expect(res.status).toBe(204);
      expect(stagedFiles(t.staging)).toEqual(before);
      expect((await tus.head('/terminate.bin')).status).toBe(404);
      expect(fs.existsSync(onDisk('terminate.bin'))).toBe(false);
    });

    it('DELETE stops a PATCH that is still sending', async () => {
      const data = testBytes(64 * 1024, 3);
      await tus.create('/terminate-busy.bin', data.length);
      const running = openPatch(t.fm.url, t.admin.token, '/terminate-busy.bin', 0, data.length, data.subarray(0, 100));
      await running.sent;
      await eventually(async () => (await tus.head('/terminate-busy.bin')).headers['upload-offset'] === '100');
      expect((await tus.remove('/terminate-busy.bin')).status).toBe(204);
      await running.finish(data.subarray(100)).catch(() => undefined);
      expect((await tus.head('/terminate-busy.bin')).status).toBe(404);
      expect(fs.existsSync(onDisk('terminate-busy.bin'))).toBe(false);
    });
  });

  describe('partial uploads are never visible', () => {
    it('keeps staged bytes outside the served tree, out of listings', async () => {
      await tus.create('/hidden/partial.bin', 100);
      await tus.patch('/hidden/partial.bin', 0, Buffer.alloc(10));
      // On PostgreSQL staging is in the shared root by design (hidden and protected, below).
      if (!onPostgres(t.fm)) expect(t.staging.startsWith(t.fm.root)).toBe(false);
      expect(stagedFiles(t.staging).length).toBeGreaterThan(0);
      // Neither the target nor its folder exist before the last byte.
      expect(fs.existsSync(onDisk('hidden'))).toBe(false);
      const listing = await t.admin.json<{ items: Array<{ name: string }> }>('/api/resources/');
      const names = listing.items.map((i) => i.name);
      expect(names).not.toContain('hidden');
      expect(names.some((n) => n.startsWith('.fm'))).toBe(false);
      expect((await t.admin.fetch('/api/resources/hidden/partial.bin')).status).toBe(404);
    });
  });

  describe('settings reach the page', () => {
    it('injects tus.chunkSize and tus.retryCount as TusSettings', async () => {
      const put = await t.admin.fetch('/api/settings', { method: 'PUT', json: { tus: { chunkSize: 5 * 1024 * 1024, retryCount: 3 } } });
      expect(put.status).toBe(200);
      const html = await (await fetch(`${t.fm.url}/`)).text();
      const m = /window\.FM=(\{.*?\});/s.exec(html);
      expect(m).not.toBeNull();
      expect(JSON.parse(m![1]).TusSettings).toEqual({ chunkSize: 5 * 1024 * 1024, retryCount: 3 });
    });
  });
});
