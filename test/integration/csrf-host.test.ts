/**
 * AUTH (CSRF, DNS rebinding): the HTTP edge. A page on another site must not change anything
 * (a foreign Origin or `Sec-Fetch-Site: cross-site` on a state-changing request is 403, and a
 * JSON body needs `Content-Type: application/json` unless the request carries a token header,
 * which no cross-site page can send without a CORS preflight). A Host the server is not
 * reached by is refused (421) on every route and on WebSocket upgrades, so a DNS-rebinding
 * page cannot talk to fm even in --noauth mode.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFm, type FmServer } from '../helpers/server.ts';
import { spawnFm } from '../helpers/spawn.ts';
import { rawRequest, type RawResponse } from '../helpers/http-raw.ts';

const EVIL = 'https://evil.example';

/** A WebSocket upgrade request; resolves with 101 when the server switched protocols, else its answer. */
function upgrade(base: string, pathname: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: pathname,
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve({ status: 101, text: '' });
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

const newAdmin = (username: string) =>
  JSON.stringify({ what: 'user', which: [], data: { username, password: 'a-long-enough-password-9', perm: { admin: true } } });

describe('AUTH CSRF: cross-site requests change nothing (--noauth)', () => {
  let fm: FmServer;
  let origin: string;
  const post = (p: string, body: string, headers: Record<string, string>, method = 'POST'): Promise<RawResponse> =>
    rawRequest(fm.url, { method, path: p, body, headers });
  const usernames = async () => (JSON.parse((await rawRequest(fm.url, { path: '/api/users' })).text) as Array<{ username: string }>).map((u) => u.username);

  beforeAll(async () => {
    fm = await startFm({ args: ['--noauth'] });
    origin = new URL(fm.url).origin;
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('a text/plain form POST from another site creates no admin user (403)', async () => {
    const res = await post('/api/users', newAdmin('mallory'), { 'Content-Type': 'text/plain', Origin: EVIL, 'Sec-Fetch-Site': 'cross-site' });
    expect(res.status).toBe(403);
    expect(res.text).toMatch(/^403 Forbidden: .*cross-site/);
    expect(await usernames()).toEqual(['admin']);
  });

  it('a text/plain POST from another site creates no file, neither through resources nor tus', async () => {
    const res = await post('/api/resources/pwned.txt', 'owned', { 'Content-Type': 'text/plain', Origin: EVIL });
    expect(res.status).toBe(403);
    const tus = await post('/api/tus/pwned-tus.txt', '', { 'Upload-Length': '5', Origin: EVIL });
    expect(tus.status).toBe(403);
    expect(fs.readdirSync(fm.root)).toEqual([]);
  });

  it('refuses Sec-Fetch-Site: cross-site without an Origin, and Origin: null (sandboxed pages)', async () => {
    expect((await post('/api/users', newAdmin('nullish'), { 'Content-Type': 'application/json', Origin: 'null' })).status).toBe(403);
    expect((await post('/api/users', newAdmin('fetchsite'), { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await post('/api/settings', '{"enableExec":true}', { 'Content-Type': 'application/json', Origin: EVIL }, 'PUT')).status).toBe(403);
    expect(await usernames()).toEqual(['admin']);
  });

  it('a JSON body without Content-Type: application/json and without a token header is 415', async () => {
    // What a browser that sent no Origin would still be stopped by.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await post('/api/users', newAdmin('typeless'), { 'Content-Type': type });
      expect(res.status, type).toBe(415);
      expect(res.text).toMatch(/^415 Unsupported Media Type: .*application\/json/);
    }
    // Browsers attach a proxy's Basic credentials by themselves: they are no token header.
    expect((await post('/api/users', newAdmin('basic'), { 'Content-Type': 'text/plain', Authorization: 'Basic YTpi' })).status).toBe(415);
    expect(await usernames()).toEqual(['admin']);
  });

  it('a same-origin browser request still works (Origin and Sec-Fetch-Site of this server)', async () => {
    const res = await post('/api/users', newAdmin('browser'), { 'Content-Type': 'application/json', Origin: origin, 'Sec-Fetch-Site': 'same-origin' });
    expect(res.status).toBe(201);
    const file = await post('/api/resources/mine.txt', 'mine', { 'Content-Type': 'text/plain', Origin: origin, 'Sec-Fetch-Site': 'same-origin' });
    expect(file.status).toBe(200);
    expect(fs.readFileSync(path.join(fm.root, 'mine.txt'), 'utf8')).toBe('mine');
  });

  it("filebrowser's web client still works: JSON as text/plain with an X-Auth token", async () => {
    const token = (await post('/api/login', '{}', { 'Content-Type': 'application/json' })).text;
    const res = await post('/api/users', newAdmin('fbclient'), { 'Content-Type': 'text/plain;charset=UTF-8', 'X-Auth': token, Origin: origin }, 'POST');
    expect(res.status).toBe(201);
    expect(await usernames()).toEqual(['admin', 'browser', 'fbclient']);
  });

  it('scripts without a browser still log in with curl -d (no Origin, no JSON type)', async () => {
    const res = await post('/api/login', '{}', { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
  });
});

describe('AUTH DNS rebinding: a Host the server is not reached by is refused', () => {
  let fm: FmServer;
  let port: string;

  beforeAll(async () => {
    fm = await startFm({ args: ['--noauth'] });
    port = new URL(fm.url).port;
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('421 on API routes and the page, with a message that says how to allow the name', async () => {
    for (const p of ['/api/users', '/', '/files/', '/static/app.js', '/api/resources/']) {
      const res = await rawRequest(fm.url, { path: p, headers: { Host: `rebind.evil.example:${port}` } });
      expect(res.status, p).toBe(421);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toMatch(/rebind\.evil\.example/);
      expect(res.text).toMatch(/--allowed-hosts/);
    }
    const post = await rawRequest(fm.url, {
      method: 'POST',
      path: '/api/users',
      headers: { Host: `rebind.evil.example:${port}`, Origin: `http://rebind.evil.example:${port}`, 'Content-Type': 'application/json' },
      body: newAdmin('rebound'),
    });
    expect(post.status).toBe(421);
  });

  it('421 on the WebSocket upgrade of the command runner, before anyone else sees it', async () => {
    const res = await upgrade(fm.url, '/api/command/', { Host: `rebind.evil.example:${port}`, Origin: `http://rebind.evil.example:${port}` });
    expect(res.status).toBe(421);
    expect(res.text).toMatch(/--allowed-hosts/);
  });

  it('the names the server is reached by work: 127.0.0.1, localhost, [::1] (any port)', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, 'localhost']) {
      expect((await rawRequest(fm.url, { path: '/api/users/1', headers: { Host: host } })).status, host).toBe(200);
    }
    const ws = await upgrade(fm.url, '/api/command/', { Host: `localhost:${port}`, Origin: `http://localhost:${port}` });
    expect(ws.status).toBe(101);
  });

  it('/health stays open whatever the Host', async () => {
    const res = await rawRequest(fm.url, { path: '/health', headers: { Host: 'monitor.internal' } });
    expect(res.status).toBe(200);
  });
});

describe('AUTH --allowed-hosts', () => {
  let fm: FmServer;
  let port: string;

  beforeAll(async () => {
    fm = await startFm({ args: ['--allowed-hosts', 'files.example.com, Other.Example.'] });
    port = new URL(fm.url).port;
  });
  afterAll(async () => {
    await fm.stop();
  });

  it('serves the names given (case-insensitive, a trailing dot ignored) besides the defaults', async () => {
    for (const host of ['files.example.com', `FILES.example.com:${port}`, 'other.example', 'other.example.', `127.0.0.1:${port}`]) {
      expect((await rawRequest(fm.url, { path: '/', headers: { Host: host } })).status, host).toBe(200);
    }
  });

  it('refuses other names in json auth mode too', async () => {
    for (const host of ['evil.example', 'files.example.com.evil.example', `sub.files.example.com:${port}`]) {
      const res = await rawRequest(fm.url, { method: 'POST', path: '/api/login', headers: { Host: host, 'Content-Type': 'application/json' }, body: '{}' });
      expect(res.status, host).toBe(421);
    }
  });

  it('takes the list from FM_ALLOWED_HOSTS too', async () => {
    const other = await spawnFm({ env: { FM_ALLOWED_HOSTS: 'env.example' } });
    try {
      expect((await rawRequest(other.url, { path: '/', headers: { Host: 'env.example' } })).status).toBe(200);
      expect((await rawRequest(other.url, { path: '/', headers: { Host: 'files.example.com' } })).status).toBe(421);
    } finally {
      await other.stop();
    }
  });
});

describe('AUTH listening on all addresses', () => {
  let fm: FmServer;

  beforeAll(async () => {
    fm = await startFm({ args: ['--address', '0.0.0.0'] });
  });
  afterAll(async () => {
    await fm.stop();
  });

  it("accepts the machine's hostname and its interface addresses, still refuses other names", async () => {
    const addresses = Object.values(os.networkInterfaces())
      .flat()
      .filter((a): a is os.NetworkInterfaceInfo => Boolean(a) && a!.family === 'IPv4')
      .map((a) => a.address);
    for (const host of [os.hostname(), ...addresses]) {
      expect((await rawRequest(fm.url.replace('0.0.0.0', '127.0.0.1'), { path: '/', headers: { Host: host } })).status, host).toBe(200);
    }
    expect((await rawRequest(fm.url.replace('0.0.0.0', '127.0.0.1'), { path: '/', headers: { Host: 'evil.example' } })).status).toBe(421);
  });
});
