import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, adminClient, createUser, type Client } from '../helpers/server.ts';
import { OUTSIDE_SECRET, TRAVERSALS, bombPng, rawGet, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;
const cacheDir = () => path.join(fm.home, 'cache', 'previews');

/** Left half red, right half blue: crops and rotations show in the pixels. */
async function redBlue(width: number, height: number) {
  const px = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x < width / 2) px.set([220, 20, 20], i);
      else px.set([20, 20, 220], i);
    }
  }
  return sharp(px, { raw: { width, height, channels: 3 } });
}

async function image(res: Response) {
  const body = Buffer.from(await res.arrayBuffer());
  const meta = await sharp(body).metadata();
  return { body, format: meta.format, width: meta.width, height: meta.height };
}

/** RGB of the pixel at (x, y) of an encoded image. */
async function pixel(body: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * 3;
  return [data[i], data[i + 1], data[i + 2]];
}

const isRed = ([r, , b]: number[]) => r > 150 && b < 100;
const isBlue = ([r, , b]: number[]) => b > 150 && r < 100;

function put(rel: string, data: Buffer | string) {
  const abs = path.join(fm.root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}

beforeAll(async () => {
  fm = await startMediaFm();
  admin = await adminClient(fm);
  put('rot6.jpg', await (await redBlue(300, 200)).withMetadata({ orientation: 6 }).jpeg().toBuffer());
  put(
    'alpha.png',
    await sharp({ create: { width: 400, height: 100, channels: 4, background: { r: 0, g: 200, b: 0, alpha: 0.5 } } })
      .png()
      .toBuffer(),
  );
  put('wide.webp', await (await redBlue(2000, 1000)).webp().toBuffer());
  put(
    'anim.gif',
    await sharp({ create: { width: 8, height: 8, channels: 3, background: 'green' } })
      .gif()
      .toBuffer(),
  );
  put('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script></svg>');
  put('photo.heic', fs.readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/media/red-blue-64x48.heic')));
  put('bomb.png', bombPng(100_000, 100_000));
  put('notes.txt', 'just text');
  put('fake.jpg', 'not really a jpeg');
  put('folder.jpg/inside.txt', 'a folder named like an image');
  put('private/hidden.jpg', await (await redBlue(50, 50)).jpeg().toBuffer());
  fs.copyFileSync(path.join(fm.root, 'rot6.jpg'), path.join(fm.outside, 'outside.jpg'));
  fs.symlinkSync(path.join(fm.outside, 'outside.jpg'), path.join(fm.root, 'escape.jpg'));
  fs.symlinkSync(path.join(fm.root, 'rot6.jpg'), path.join(fm.root, 'inside-link.jpg'));
});

afterAll(async () => {
  await fm?.stop();
});

describe('GET /api/preview', () => {
  it('makes a 256×256 WebP thumbnail of a JPEG', async () => {
    const res = await admin.fetch('/api/preview/thumb/rot6.jpg?inline=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/webp');
    const img = await image(res);
    expect([img.format, img.width, img.height]).toEqual(['webp', 256, 256]);
  });

  it('applies the EXIF orientation (6: rotate 90° clockwise)', async () => {
    const img = await image(await admin.fetch('/api/preview/big/rot6.jpg'));
    expect([img.width, img.height]).toEqual([200, 300]); // portrait now, never enlarged
    expect(isRed(await pixel(img.body, 100, 10))).toBe(true); // the red left half is on top
    expect(isBlue(await pixel(img.body, 100, 290))).toBe(true);
  });

  it('fits big previews inside 1080×1080 and keeps the aspect ratio', async () => {
    const img = await image(await admin.fetch('/api/preview/big/wide.webp'));
    expect([img.format, img.width, img.height]).toEqual(['webp', 1080, 540]);
  });

  it('keeps transparency of a PNG', async () => {
    const res = await admin.fetch('/api/preview/thumb/alpha.png');
    const body = Buffer.from(await res.arrayBuffer());
    const meta = await sharp(body).metadata();
    expect([meta.width, meta.height, meta.hasAlpha]).toEqual([256, 256, true]);
  });

  it('decodes HEIC through heic-decode', async () => {
    const res = await admin.fetch('/api/preview/thumb/photo.heic');
    expect(res.status).toBe(200);
    const img = await image(res);
    expect([img.format, img.width, img.height]).toEqual(['webp', 256, 256]);
    expect(isRed(await pixel(img.body, 20, 128))).toBe(true);
    expect(isBlue(await pixel(img.body, 235, 128))).toBe(true);
  });

  it('serves a GIF as it is, with the raw-file protections', async () => {
    const res = await admin.fetch('/api/preview/thumb/anim.gif');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(fm.root, 'anim.gif')))).toBe(true);
    expect(res.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('XSS: never rasterises SVG; serves it raw with a sandbox CSP and nosniff, so its script cannot run', async () => {
    const res = await admin.fetch('/api/preview/big/logo.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain('sandbox');
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(fs.readdirSync(cacheDir()).includes('logo.svg')).toBe(false);
  });

  it('falls back to the original for a file named like an image that sharp cannot read', async () => {
    const res = await admin.fetch('/api/preview/thumb/fake.jpg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(await res.text()).toBe('not really a jpeg');
  });

  it('DOS: refuses an image declaring 10 gigapixels with 413, from its header alone', async () => {
    const key = Math.trunc(fs.statSync(path.join(fm.root, 'bomb.png')).mtimeMs);
    const res = await admin.fetch(`/api/preview/thumb/bomb.png?inline=true&key=${key}`);
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/^413 Payload Too Large: .*100000×100000/);
    expect(res.headers.get('cache-control')).not.toMatch(/max-age/); // errors are never cached
    expect((await admin.fetch('/health')).status).toBe(200);
  });

  it('answers 501 for something that is not an image, and for a folder', async () => {
    expect((await admin.fetch('/api/preview/thumb/notes.txt')).status).toBe(501);
    expect((await admin.fetch('/api/preview/thumb/folder.jpg')).status).toBe(501);
    expect((await admin.fetch('/api/preview/big/')).status).toBe(501);
  });

  it('answers 400 for an unknown size and 404 for a missing file', async () => {
    const bad = await admin.fetch('/api/preview/medium/rot6.jpg');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('thumb or big');
    expect((await admin.fetch('/api/preview/x%2f..')).status).toBe(400);
    expect((await admin.fetch('/api/preview/thumb/missing.jpg')).status).toBe(404);
  });

  it('caches previews on disk and serves the second request from the cache', async () => {
    const first = Buffer.from(await (await admin.fetch('/api/preview/thumb/wide.webp')).arrayBuffer());
    const dir = path.join(cacheDir(), 'wide.webp');
    const cached = fs.readdirSync(dir).filter((n) => n.startsWith('thumb-'));
    expect(cached).toHaveLength(1);
    const mtime = fs.statSync(path.join(dir, cached[0])).mtimeMs;
    const second = Buffer.from(await (await admin.fetch('/api/preview/thumb/wide.webp')).arrayBuffer());
    expect(second.equals(first)).toBe(true);
    expect(fs.readFileSync(path.join(dir, cached[0])).equals(first)).toBe(true);
    expect(fs.statSync(path.join(dir, cached[0])).mtimeMs).toBe(mtime); // not rewritten
  });

  it('makes a new preview after the file is overwritten (the cache key follows mtime and size)', async () => {
    put(
      'change.jpg',
      await sharp({ create: { width: 100, height: 100, channels: 3, background: 'red' } })
        .jpeg()
        .toBuffer(),
    );
    const before = Buffer.from(await (await admin.fetch('/api/preview/thumb/change.jpg')).arrayBuffer());
    expect(isRed(await pixel(before, 128, 128))).toBe(true);
    put(
      'change.jpg',
      await sharp({ create: { width: 100, height: 100, channels: 3, background: 'blue' } })
        .jpeg()
        .toBuffer(),
    );
    const after = Buffer.from(await (await admin.fetch('/api/preview/thumb/change.jpg')).arrayBuffer());
    expect(isBlue(await pixel(after, 128, 128))).toBe(true);
    expect(fs.readdirSync(path.join(cacheDir(), 'change.jpg')).filter((n) => n.startsWith('thumb-'))).toHaveLength(1);
  });

  it('is long-cacheable when key matches the file mtime, and revalidates with the ETag otherwise', async () => {
    const info = await admin.json<{ modified: string }>('/api/resources/rot6.jpg');
    const key = Date.parse(info.modified);
    const keyed = await admin.fetch(`/api/preview/thumb/rot6.jpg?inline=true&key=${key}`);
    expect(keyed.headers.get('cache-control')).toMatch(/^private, max-age=\d{7,}/);
    const stale = await admin.fetch(`/api/preview/thumb/rot6.jpg?inline=true&key=${key - 1000}`);
    expect(stale.headers.get('cache-control')).toBe('private, no-cache');
    const etag = stale.headers.get('etag')!;
    expect(etag).toBeTruthy();
    // node:http, because fetch adds Cache-Control: no-cache to conditional requests.
    const again = await rawGet(fm.url, '/api/preview/thumb/rot6.jpg', admin.token, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('honours enableThumbnails and resizePreview: off answers the original image', async () => {
    const original = fs.readFileSync(path.join(fm.root, 'rot6.jpg'));
    try {
      await admin.fetch('/api/settings', { method: 'PUT', json: { enableThumbnails: false } });
      const thumb = await admin.fetch('/api/preview/thumb/rot6.jpg');
      expect(thumb.headers.get('content-type')).toBe('image/jpeg');
      expect(Buffer.from(await thumb.arrayBuffer()).equals(original)).toBe(true);
      expect((await admin.fetch('/api/preview/big/rot6.jpg')).headers.get('content-type')).toBe('image/webp');
      await admin.fetch('/api/settings', { method: 'PUT', json: { enableThumbnails: true, resizePreview: false } });
      const big = await admin.fetch('/api/preview/big/rot6.jpg');
      expect(Buffer.from(await big.arrayBuffer()).equals(original)).toBe(true);
      expect((await admin.fetch('/api/preview/thumb/notes.txt')).status).toBe(501);
    } finally {
      await admin.fetch('/api/settings', { method: 'PUT', json: { enableThumbnails: true, resizePreview: true } });
    }
  });

  it('accepts the auth cookie (what <img> tags send) and refuses anonymous requests', async () => {
    const res = await fetch(`${fm.url}/api/preview/thumb/rot6.jpg`, { headers: { Cookie: `auth=${admin.token}` } });
    expect(res.status).toBe(200);
    expect((await fetch(`${fm.url}/api/preview/thumb/rot6.jpg`)).status).toBe(401);
  });

  it('follows a link inside the scope', async () => {
    expect((await admin.fetch('/api/preview/thumb/inside-link.jpg')).status).toBe(200);
  });
});

describe('preview security', () => {
  it('AUTHZ: without the download permission previews are 403, whatever the file', async () => {
    const { client } = await createUser(admin, fm, 'nodownload', { perm: { download: false, create: true } });
    expect((await client.fetch('/api/preview/thumb/rot6.jpg')).status).toBe(403);
    expect((await client.fetch('/api/preview/big/anim.gif')).status).toBe(403);
    expect((await client.fetch('/api/preview/thumb/missing.jpg')).status).toBe(403);
  });

  it('AUTHZ: a rule that denies a folder denies previews inside it', async () => {
    const { client } = await createUser(admin, fm, 'ruled', { perm: { download: true }, rules: [{ path: '/private', allow: false }] });
    expect((await client.fetch('/api/preview/thumb/private/hidden.jpg')).status).toBe(403);
    expect((await client.fetch('/api/preview/thumb/rot6.jpg')).status).toBe(200);
  });

  it('AUTHZ: a scoped user cannot reach a sibling scope (/a vs /ab)', async () => {
    put('a/mine.jpg', fs.readFileSync(path.join(fm.root, 'rot6.jpg')));
    put('ab/theirs.jpg', fs.readFileSync(path.join(fm.root, 'rot6.jpg')));
    const { client } = await createUser(admin, fm, 'scoped', { scope: '/a', perm: { download: true } });
    expect((await client.fetch('/api/preview/thumb/mine.jpg')).status).toBe(200);
    expect((await rawGet(fm.url, '/api/preview/thumb/../ab/theirs.jpg', client.token)).status).toBe(403);
    expect((await client.fetch('/api/preview/thumb/ab/theirs.jpg')).status).toBe(404);
  });

  it('SYML: a link leading out of the scope is refused', async () => {
    const res = await admin.fetch('/api/preview/thumb/escape.jpg');
    expect(res.status).toBe(403);
  });

  it('PATH: traversal attempts get 400/403/404 and never reveal anything outside the root', async () => {
    for (const size of ['thumb', 'big']) {
      for (const t of TRAVERSALS) {
        const res = await rawGet(fm.url, `/api/preview/${size}${t}`, admin.token);
        expect([400, 403, 404], `${size}${t} → ${res.status}`).toContain(res.status);
        expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
      }
    }
    expect((await rawGet(fm.url, '/api/preview/..%2f..%2foutside-secret.txt', admin.token)).status).toBe(400);
  });

  it('PATH: the preview cache and the database are out of reach even through the API', async () => {
    // The data folder (database, caches) is outside the root here; a root inside it is covered by the gate tests.
    const res = await rawGet(fm.url, `/api/preview/thumb/..%2f..%2f${path.basename(fm.home)}%2fcache%2fpreviews`, admin.token);
    expect([400, 403, 404]).toContain(res.status);
  });
});
