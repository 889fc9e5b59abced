/**
 * GET /api/public/preview/{thumb|big}/{hash}/{subpath}: the share page's thumbnails, through the
 * link's own checks (password token, scope of the link, rules, the owner's permissions).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, type Client } from '../helpers/server.ts';
import { PERMS, rawGet, share, updateUser } from './share-helpers.ts';
import { OUTSIDE_SECRET, startMediaFm, type MediaServer } from './media-helpers.ts';

let fm: MediaServer;
let admin: Client;
let alice: { client: Client; id: number };

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();
}

function put(rel: string, data: Buffer | string) {
  const abs = path.join(fm.root, 'alice', rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, data);
}

const preview = (size: string, hash: string, sub = '', query = '') => fetch(`${fm.url}/api/public/preview/${size}/${hash}${sub}${query}`);

beforeAll(async () => {
  fm = await startMediaFm();
  admin = await adminClient(fm);
  fs.mkdirSync(path.join(fm.root, 'alice'));
  const user = await createUser(admin, fm, 'alice', { scope: '/alice', perm: PERMS });
  alice = { client: user.client, id: user.id };
  put('photos/big.png', await png(2000, 1500));
  put('photos/notes.txt', 'not an image');
  put('photos/.hidden.png', await png(10, 10));
  put('private/secret.png', await png(10, 10));
  fs.copyFileSync(path.join(fm.root, 'alice', 'photos', 'big.png'), path.join(fm.root, 'alice', 'single.png'));
});

afterAll(() => fm?.stop());

describe('public previews of a folder link', () => {
  it('answers a thumbnail of an image in the link, smaller than the original', async () => {
    const link = await share(alice.client, '/photos');
    const res = await preview('thumb', link.hash, '/big.png');
    expect(res.status).toBe(200);
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
    expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(512);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses what is not an image, an unknown size and a missing file, never with a 500', async () => {
    const link = await share(alice.client, '/photos');
    expect((await preview('thumb', link.hash, '/notes.txt')).status).toBe(501); // as /api/preview answers
    expect((await preview('huge', link.hash, '/big.png')).status).toBe(400);
    expect((await preview('thumb', link.hash, '/gone.png')).status).toBe(404);
    expect((await preview('thumb', 'no-such-hash', '/big.png')).status).toBe(404);
  });

  it('never leaves the link: traversal to a sibling folder or outside the root is refused', async () => {
    const link = await share(alice.client, '/photos');
    for (const sub of ['/../private/secret.png', '/%2e%2e/private/secret.png', '/..%2fprivate%2fsecret.png', '/../../../outside.jpg']) {
      const res = await rawGet(fm.url, `/api/public/preview/thumb/${link.hash}${sub}`);
      expect(res.status, sub).toBeGreaterThanOrEqual(400);
      expect(res.status, sub).toBeLessThan(500);
      expect(res.body.toString('latin1')).not.toContain(OUTSIDE_SECRET);
    }
  });

  it('applies the owner rules: a hidden image has no preview', async () => {
    await updateUser(admin, fm, alice.id, { rules: [{ regex: true, allow: false, path: '', regexp: { raw: '/\\.hidden' } }] });
    const link = await share(alice.client, '/photos');
    expect((await preview('thumb', link.hash, '/.hidden.png')).status).toBe(403); // as the link's info and downloads answer
    await updateUser(admin, fm, alice.id, { rules: [] });
  });

  it('asks for the password of a protected link, and takes its token', async () => {
    const link = await share(alice.client, '/photos', { password: 'link-pass-1' });
    expect((await preview('thumb', link.hash, '/big.png')).status).toBe(401);
    const info = await fetch(`${fm.url}/api/public/share/${link.hash}`, { headers: { 'X-SHARE-PASSWORD': 'link-pass-1' } });
    const { token } = (await info.json()) as { token: string };
    expect((await preview('thumb', link.hash, '/big.png', `?token=${encodeURIComponent(token)}`)).status).toBe(200);
    expect((await preview('thumb', link.hash, '/big.png', '?token=wrong')).status).toBe(401);
  });

  it('ends with the owner download permission', async () => {
    const link = await share(alice.client, '/photos');
    await updateUser(admin, fm, alice.id, { perm: { ...PERMS, download: false, share: false } });
    try {
      expect((await preview('thumb', link.hash, '/big.png')).status).toBe(403);
    } finally {
      await updateUser(admin, fm, alice.id, { perm: PERMS });
    }
  });
});

describe('public previews of a file link', () => {
  it('answers the shared file whatever the subpath names', async () => {
    const link = await share(alice.client, '/single.png');
    const res = await preview('big', link.hash);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
  });
});
