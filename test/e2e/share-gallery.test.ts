/** The public share page shows images through the link's preview route, never the full-size original. */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { useBrowser } from '../helpers/browser.ts';

/** The loaded image's intrinsic size, once the browser has decoded it. */
async function naturalSize(img: Locator): Promise<[number, number]> {
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
  return img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight] as [number, number]);
}

describe('images on a share page', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-gallery-');
    fs.mkdirSync(path.join(root, 'pics'));
    const photo = await sharp({ create: { width: 3000, height: 2000, channels: 3, background: { r: 20, g: 120, b: 200 } } })
      .jpeg()
      .toBuffer();
    fs.writeFileSync(path.join(root, 'pics/photo.jpg'), photo);
    fs.writeFileSync(path.join(root, 'pics/readme.txt'), 'text');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists images with thumbnails and shows a screen-sized image, with the link password token', async () => {
    const { hash } = await admin.json<{ hash: string }>('/api/share/pics', { method: 'POST', json: { password: 'gallery pass' } });
    const visitor = await browser.newPage();
    browser.allowConsoleError(/401 \(Unauthorized\)/);
    await visitor.goto(`${fm.url}/share/${hash}`);
    await visitor.getByLabel('Password').fill('gallery pass');
    await visitor.getByRole('button', { name: 'Submit' }).click();
    await visitor.getByRole('heading', { name: 'pics', level: 2 }).waitFor();

    // One thumbnail, for the image only; the text file keeps its icon.
    const thumbs = visitor.locator('.share-item img.share-thumb');
    await expect.poll(() => thumbs.count()).toBe(1);
    expect(await thumbs.getAttribute('src')).toMatch(new RegExp(`/api/public/preview/thumb/${hash}/photo\\.jpg\\?key=\\d+&token=`));
    expect(await naturalSize(thumbs)).toEqual([256, 256]);

    await visitor.getByRole('link', { name: 'photo.jpg' }).click();
    await visitor.getByRole('heading', { name: 'photo.jpg', level: 2 }).waitFor();
    const image = visitor.getByRole('img', { name: 'photo.jpg' });
    expect(await image.getAttribute('src')).toContain(`/api/public/preview/big/${hash}/photo.jpg`);
    expect(await naturalSize(image)).toEqual([1080, 720]);
    // The original stays one click away.
    expect(await visitor.getByRole('link', { name: 'Open file' }).getAttribute('href')).toMatch(/\/api\/public\/dl\/.*inline=true/);
  });
});
