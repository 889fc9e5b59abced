/**
 * GET /api/raw for files: headers, dispositions, Range (206/416, several ranges answer the
 * whole file), conditional requests (304, 412, If-Range), cookies, and the XSS headers on
 * uploaded HTML and SVG.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { enc, makeTree, rawRequest } from '../helpers/files.ts';

let fm: FmServer;
let admin: Client;
const DIGITS = '0123456789';
const USER_FILE_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: blob:; media-src 'self'";

const get = (p: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(fm.url, p, { method, headers: { 'X-Auth': admin.token, ...headers } });

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
  makeTree(fm.root, { 'digits.txt': DIGITS, 'empty.txt': '', 'café résumé "q".pdf': '%PDF-1.4 fake', d: { 'x.txt': 'x' } });
});
afterAll(async () => {
  expect(fm.output()).not.toMatch(/ 5\d\d [\d.]+ms/);
  await fm.stop();
});

describe('a whole file', () => {
  it('is an attachment with private caching, validators and the user-file CSP', async () => {
    const res = await get('/api/raw/digits.txt');
    expect(res.status).toBe(200);
    expect(res.text).toBe(DIGITS);
    expect(res.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'content-length': '10',
      'accept-ranges': 'bytes',
      'cache-control': 'private',
      'x-content-type-options': 'nosniff',
    });
    expect(res.headers['content-security-policy']).toContain(USER_FILE_CSP);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="digits.txt"; filename*=UTF-8''digits.txt`);
    expect(res.headers.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(new Date(res.headers['last-modified']!).getTime()).toBe(Math.floor(fs.statSync(path.join(fm.root, 'digits.txt')).mtimeMs / 1000) * 1000);
  });

  it('names non-ASCII files with RFC 5987 filename*', async () => {
    const res = await get(`/api/raw/${enc('café résumé "q".pdf')}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="caf_ r_sum_ _q_.pdf"; filename*=UTF-8''caf%C3%A9%20r%C3%A9sum%C3%A9%20%22q%22.pdf`);
  });

  it('inline=true shows it with the type of its extension', async () => {
    const txt = await get('/api/raw/digits.txt?inline=true');
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(txt.headers['content-disposition']).toMatch(/^inline; filename="digits.txt"/);
    const pdf = await get(`/api/raw/${enc('café résumé "q".pdf')}?inline=true`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
  });

  it('an empty file, HEAD, a missing file, a folder-only parameter', async () => {
    const empty = await get('/api/raw/empty.txt');
    expect(empty.status).toBe(200);
    expect(empty.headers['content-length']).toBe('0');
    const head = await get('/api/raw/digits.txt', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('10');
    expect(head.body.length).toBe(0);
    expect((await get('/api/raw/missing.txt')).status).toBe(404);
    expect((await get(`/api/raw/digits.txt?files=${enc('/a')}`)).status).toBe(400);
  });

  it('streams a large file intact', async () => {
    const big = crypto.randomBytes(24 * 1024 * 1024 + 123);
    fs.writeFileSync(path.join(fm.root, 'big.bin'), big);
    const res = await get('/api/raw/big.bin');
    expect(res.status).toBe(200);
    expect(crypto.createHash('sha256').update(res.body).digest('hex')).toBe(crypto.createHash('sha256').update(big).digest('hex'));
    const part = await get('/api/raw/big.bin', { Range: 'bytes=20000000-20000099' });
    expect(part.status).toBe(206);
    expect(part.body.equals(big.subarray(20000000, 20000100))).toBe(true);
    fs.rmSync(path.join(fm.root, 'big.bin'));
  });

  it('a reader slower than the disk still gets every byte (read buffers are reused only once written out)', async () => {
    const big = crypto.randomBytes(16 * 1024 * 1024 + 7);
    fs.writeFileSync(path.join(fm.root, 'slow.bin'), big);
    const u = new URL(fm.url);
    const hash = crypto.createHash('sha256');
    await new Promise<void>((resolve, reject) => {
      http
        .get({ host: u.hostname, port: u.port, path: '/api/raw/slow.bin', headers: { 'X-Auth': admin.token } }, (res) => {
          // Pausing after every chunk keeps the server waiting on a full socket most of the time.
          res.on('data', (chunk: Buffer) => {
            hash.update(chunk);
            res.pause();
            setImmediate(() => res.resume());
          });
          res.on('end', resolve);
          res.on('error', reject);
        })
        .on('error', reject);
    });
    expect(hash.digest('hex')).toBe(crypto.createHash('sha256').update(big).digest('hex'));
    fs.rmSync(path.join(fm.root, 'slow.bin'));
  });

  it('a client that leaves mid-download gets its file closed', async () => {
    const file = path.join(fm.root, 'left.bin');
    fs.writeFileSync(file, crypto.randomBytes(32 * 1024 * 1024));
    const openFiles = () =>
      fs.readdirSync(`/proc/${fm.pid}/fd`).filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/${fm.pid}/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    const u = new URL(fm.url);
    await new Promise<void>((resolve) => {
      const req = http.get({ host: u.hostname, port: u.port, path: '/api/raw/left.bin', headers: { 'X-Auth': admin.token } }, (res) => {
        res.once('data', () => {
          expect(openFiles()).toBe(1);
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {}); // the hang-up this test causes
    });
    await expect.poll(openFiles).toBe(0);
    fs.rmSync(file);
  });

  it('a FIFO is 400, never a hang', async () => {
    execFileSync('mkfifo', [path.join(fm.root, 'pipe')]);
    expect((await get('/api/raw/pipe')).status).toBe(400);
    const info = await admin.json<{ type: string }>('/api/resources/pipe');
    expect(info.type).toBe('blob');
    fs.rmSync(path.join(fm.root, 'pipe'));
  });
});

describe('Range', () => {
  it.each([
    ['bytes=0-0', '0', 'bytes 0-0/10'],
    ['bytes=2-5', '2345', 'bytes 2-5/10'],
    ['bytes=7-', '789', 'bytes 7-9/10'],
    ['bytes=-3', '789', 'bytes 7-9/10'],
    ['bytes=8-100', '89', 'bytes 8-9/10'],
    ['bytes=0-1,1-3', '0123', 'bytes 0-3/10'],
  ])('%s -> 206 %s', async (range, body, contentRange) => {
    const res = await get('/api/raw/digits.txt', { Range: range });
    expect(res.status).toBe(206);
    expect(res.text).toBe(body);
    expect(res.headers['content-range']).toBe(contentRange);
    expect(res.headers['content-length']).toBe(String(body.length));
  });

  it('several disjoint ranges get the whole file (200)', async () => {
    const res = await get('/api/raw/digits.txt', { Range: 'bytes=0-0,5-6' });
    expect(res.status).toBe(200);
    expect(res.text).toBe(DIGITS);
  });

  it('malformed ranges and other units are ignored (200)', async () => {
    for (const range of ['bytes=abc', 'items=0-1', 'bytes']) {
      const res = await get('/api/raw/digits.txt', { Range: range });
      expect(res.status, range).toBe(200);
      expect(res.text).toBe(DIGITS);
    }
  });

  it('416 with Content-Range: bytes */size when nothing can be satisfied', async () => {
    for (const range of ['bytes=10-', 'bytes=100-200', 'bytes=5-2']) {
      const res = await get('/api/raw/digits.txt', { Range: range });
      expect(res.status, range).toBe(416);
      expect(res.headers['content-range']).toBe('bytes */10');
    }
    expect((await get('/api/raw/empty.txt', { Range: 'bytes=0-' })).headers['content-range']).toBe('bytes */0');
  });

  it('If-Range: the current ETag or date keeps the range, anything else gets the whole file', async () => {
    const { headers } = await get('/api/raw/digits.txt');
    expect((await get('/api/raw/digits.txt', { Range: 'bytes=0-1', 'If-Range': headers.etag! })).status).toBe(206);
    expect((await get('/api/raw/digits.txt', { Range: 'bytes=0-1', 'If-Range': headers['last-modified']! })).status).toBe(206);
    expect((await get('/api/raw/digits.txt', { Range: 'bytes=0-1', 'If-Range': '"stale"' })).status).toBe(200);
    expect((await get('/api/raw/digits.txt', { Range: 'bytes=0-1', 'If-Range': `W/${headers.etag}` })).status).toBe(200);
    expect((await get('/api/raw/digits.txt', { Range: 'bytes=0-1', 'If-Range': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
  });
});

describe('conditional requests', () => {
  it('If-None-Match and If-Modified-Since give 304 with no body', async () => {
    const { headers } = await get('/api/raw/digits.txt');
    const variants: Array<Record<string, string>> = [
      { 'If-None-Match': headers.etag! },
      { 'If-None-Match': `"other", ${headers.etag}` },
      { 'If-Modified-Since': headers['last-modified']! },
    ];
    for (const h of variants) {
      const res = await get('/api/raw/digits.txt', h);
      expect(res.status, JSON.stringify(h)).toBe(304);
      expect(res.body.length).toBe(0);
      expect(res.headers.etag).toBe(headers.etag);
    }
  });

  it('a changed file, an older date or a stale tag get 200', async () => {
    const { headers } = await get('/api/raw/digits.txt');
    expect((await get('/api/raw/digits.txt', { 'If-None-Match': '"stale"' })).status).toBe(200);
    expect((await get('/api/raw/digits.txt', { 'If-Modified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await get('/api/raw/digits.txt', { 'If-None-Match': '"stale"', 'If-Modified-Since': headers['last-modified']! })).status).toBe(200);
    fs.writeFileSync(path.join(fm.root, 'digits.txt'), `${DIGITS}!`);
    const after = await get('/api/raw/digits.txt', { 'If-None-Match': headers.etag! });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(headers.etag);
    fs.writeFileSync(path.join(fm.root, 'digits.txt'), DIGITS);
  });

  it('If-Match and If-Unmodified-Since fail with 412', async () => {
    const { headers } = await get('/api/raw/digits.txt');
    expect((await get('/api/raw/digits.txt', { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await get('/api/raw/digits.txt', { 'If-Match': headers.etag! })).status).toBe(200);
    expect((await get('/api/raw/digits.txt', { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(412);
  });
});

describe('authentication', () => {
  it('the auth cookie works on GET; no token in the URL (?auth=) is accepted', async () => {
    const cookie = await rawRequest(fm.url, '/api/raw/digits.txt', { headers: { Cookie: `auth=${admin.token}` } });
    expect(cookie.status).toBe(200);
    expect((await rawRequest(fm.url, `/api/raw/digits.txt?auth=${admin.token}`)).status).toBe(401);
    expect((await rawRequest(fm.url, '/api/resources/c.txt', { method: 'POST', headers: { Cookie: `auth=${admin.token}` }, body: 'x' })).status).toBe(401);
  });
});

describe('XSS: uploaded HTML and SVG cannot run script in our origin', () => {
  const html = '<html><body><script>fetch("/api/users").then(r=>r.text()).then(t=>fetch("/steal?"+t))</script></body></html>';
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.cookie)"><script>alert(1)</script></svg>';

  it.each([
    ['evil.html', html, 'text/html; charset=utf-8'],
    ['evil.svg', svg, 'image/svg+xml'],
    ['evil.htm', html, 'text/html; charset=utf-8'],
    ['evil.xhtml', html, 'application/xhtml+xml'],
    ['no-extension', html, 'application/octet-stream'],
  ])('%s', async (name, content, inlineType) => {
    expect((await admin.fetch(`/api/resources/${name}?override=true`, { method: 'POST', body: content })).status).toBe(200);
    for (const inline of [false, true]) {
      const res = await get(`/api/raw/${name}${inline ? '?inline=true' : ''}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(content);
      expect(res.headers['content-security-policy']).toContain('sandbox');
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-type']).toBe(inline ? inlineType : 'application/octet-stream');
      expect(res.headers['content-disposition']).toMatch(inline ? /^inline;/ : /^attachment;/);
    }
  });
});
