/**
 * XSS/LEAK: the page, its startup settings and headers; /static assets (precompressed,
 * cached by hash, conditional); /health; unmatched routes (404/405); --baseurl.
 */
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, adminClient, startFm, type FmServer } from '../helpers/server.ts';
import { rawRequest } from '../helpers/http-raw.ts';

const STARTUP_KEYS = [
  'Name',
  'DisableExternal',
  'DisableUsedPercentage',
  'BaseURL',
  'StaticURL',
  'ReCaptcha',
  'ReCaptchaKey',
  'Signup',
  'Version',
  'NoAuth',
  'AuthMethod',
  'LoginPage',
  'Theme',
  'EnableThumbs',
  'ResizePreview',
  'EnableExec',
  'TusSettings',
];

/** The inline settings script of the page and the object it assigns. */
function startupOf(html: string): { script: string; settings: Record<string, unknown> } {
  const m = /<script>(window\.FM=(.*?);)<\/script>/s.exec(html);
  if (!m) throw new Error(`no settings script in:\n${html}`);
  return { script: m[1], settings: JSON.parse(m[2]) };
}

function mainScript(html: string): string {
  const m = /<script type="module" src="([^"]+)"/.exec(html);
  if (!m) throw new Error('no module script');
  return m[1];
}

let fm: FmServer;
let admin: Client;

beforeAll(async () => {
  fm = await startFm();
  admin = await adminClient(fm);
});
afterAll(async () => {
  await fm.stop();
});

describe('the page', () => {
  it('serves index.html at / with every startup setting of spec §3', async () => {
    const res = await fetch(`${fm.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const { settings } = startupOf(await res.text());
    for (const key of STARTUP_KEYS) expect(settings, key).toHaveProperty(key);
    expect(settings).toMatchObject({
      BaseURL: '',
      StaticURL: '/static',
      AuthMethod: 'json',
      LoginPage: true,
      NoAuth: false,
      Signup: false,
      ReCaptcha: false,
      EnableExec: false,
      TusSettings: { chunkSize: 10485760, retryCount: 5 },
      WebDAVPath: '/dav/',
    });
    expect(settings.Version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('serves the same page for unknown GET paths (client-side routes)', async () => {
    for (const p of ['/login', '/files/some/deep/path', '/settings/users/3', '/share/abc']) {
      const res = await fetch(`${fm.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(startupOf(await res.text()).settings.AuthMethod).toBe('json');
    }
    const head = await fetch(`${fm.url}/files/x`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('sends a CSP that allows exactly its own inline script by hash, and frame-ancestors self', async () => {
    const res = await fetch(`${fm.url}/`);
    const { script } = startupOf(await res.text());
    const csp = res.headers.get('content-security-policy')!;
    const hash = crypto.createHash('sha256').update(script).digest('base64');
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).toContain("object-src 'none'");
  });

  it('sends nosniff, a Referrer-Policy and no caching for index.html', async () => {
    const res = await fetch(`${fm.url}/`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBeTruthy();
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
  });

  it('escapes admin-controlled strings in the title and the settings (XSS, GHSA-xfqj)', async () => {
    const evil = `</script><script>alert(1)</script><!--'"&`;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary settings JSON
    const s = await admin.json<Record<string, any>>('/api/settings');
    expect((await admin.fetch('/api/settings', { method: 'PUT', json: { ...s, branding: { ...s.branding, name: evil } } })).status).toBe(200);
    const html = await (await fetch(`${fm.url}/`)).text();
    expect(html).not.toContain('<script>alert(1)');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain('<title>&#60;/script&#62;');
    expect(startupOf(html).settings.Name).toBe(evil);
    await admin.fetch('/api/settings', { method: 'PUT', json: { ...s, branding: { ...s.branding, name: '' } } });
  });
});

describe('security headers on API answers', () => {
  it('sends nosniff, a locked-down CSP and no-store on JSON and on errors', async () => {
    for (const res of [await admin.fetch('/api/users'), await fetch(`${fm.url}/api/users`), await fetch(`${fm.url}/api/nothing`)]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
      expect(res.headers.get('referrer-policy')).toBeTruthy();
    }
  });
});

describe('/static assets', () => {
  let asset: string;
  beforeAll(async () => {
    asset = mainScript(await (await fetch(`${fm.url}/`)).text());
    expect(asset).toMatch(/^\/static\/assets\/main-[A-Z0-9]+\.js$/);
  });

  const get = (p: string, headers: Record<string, string> = {}) => rawRequest(fm.url, { path: p, headers });

  it('serves the bundle uncompressed, with gzip or with brotli by Accept-Encoding', async () => {
    const plain = await get(asset, { 'Accept-Encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/javascript/);
    const gz = await get(asset, { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const br = await get(asset, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    const noBr = await get(asset, { 'Accept-Encoding': 'br;q=0, gzip' });
    expect(noBr.headers['content-encoding']).toBe('gzip');
  });

  it('caches hashed names as immutable', async () => {
    const res = await get(asset);
    expect(res.headers['cache-control']).toMatch(/immutable/);
    expect(res.headers['cache-control']).toMatch(/max-age=31536000/);
  });

  it('answers 304 to a matching If-None-Match (also weak or in a list)', async () => {
    const etag = (await get(asset)).headers.etag!;
    expect(etag).toBeTruthy();
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const res = await get(asset, { 'If-None-Match': inm });
      expect(res.status, inm).toBe(304);
      expect(res.body.length).toBe(0);
    }
    expect((await get(asset, { 'If-None-Match': '"stale"' })).status).toBe(200);
  });

  it('answers 404 to unknown assets, index.html, folders, bad encodings and traversal, never 500', async () => {
    for (const p of [
      '/static/nope.js',
      '/static/index.html',
      '/static/',
      '/static/%ZZ',
      '/static/%E0%A4%A',
      '/static/../package.json',
      '/static/..%2f..%2fpackage.json',
      '/static/assets/../../../etc/passwd',
      // A folder of the bundle, listed with its files but not an asset.
      '/static/assets',
    ]) {
      const res = await get(p);
      expect(res.status, p).toBe(404);
    }
  });

  it('answers 405 to a non-GET', async () => {
    expect((await rawRequest(fm.url, { method: 'POST', path: asset })).status).toBe(405);
  });
});

describe('health and unmatched routes', () => {
  it('answers /health with {"status":"OK"}', async () => {
    const res = await fetch(`${fm.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(await res.json()).toEqual({ status: 'OK' });
  });

  it('answers 404 to unknown API paths, whatever the method', async () => {
    for (const [method, p] of [
      ['GET', '/api/x'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['POST', '/api/x'],
      ['DELETE', '/api/users/1/extra'],
    ]) {
      const res = await admin.fetch(p, { method });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(await res.text()).toMatch(/^404 Not Found/);
    }
  });

  it('answers 404 to a non-GET on a page path', async () => {
    expect((await fetch(`${fm.url}/files/x`, { method: 'POST' })).status).toBe(404);
  });

  it('answers 405 with Allow to a known path with the wrong method', async () => {
    const login = await fetch(`${fm.url}/api/login`);
    expect(login.status).toBe(405);
    expect(login.headers.get('allow')).toMatch(/POST/);
    expect((await fetch(`${fm.url}/health`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${fm.url}/api/renew`)).status).toBe(405);
  });
});

describe('--baseurl /fm', () => {
  let sub: FmServer;
  beforeAll(async () => {
    sub = await startFm({ args: ['--baseurl', '/fm/'] });
  });
  afterAll(async () => {
    await sub.stop();
  });

  it('prints the URL with the prefix', () => {
    expect(sub.url).toMatch(/\/fm$/);
  });

  it('redirects /fm to /fm/ with 301', async () => {
    const res = await rawRequest(sub.url, { path: '/fm' });
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/fm/');
  });

  it('serves the page with the prefix in BaseURL, StaticURL and the script URL', async () => {
    const html = (await rawRequest(sub.url, { path: '/fm/' })).text;
    expect(startupOf(html).settings).toMatchObject({ BaseURL: '/fm', StaticURL: '/fm/static' });
    const script = mainScript(html);
    expect(script).toMatch(/^\/fm\/static\/assets\//);
    expect((await rawRequest(sub.url, { path: script })).status).toBe(200);
  });

  it('serves the API under /fm/api', async () => {
    const c = new Client(sub.url);
    await c.login('admin', sub.adminPassword);
    expect((await c.fetch('/api/users')).status).toBe(200);
    expect((await rawRequest(sub.url, { path: '/fm/health' })).text).toBe('{"status":"OK"}');
    expect((await rawRequest(sub.url, { path: '/fm/api/nothing' })).status).toBe(404);
  });
});
