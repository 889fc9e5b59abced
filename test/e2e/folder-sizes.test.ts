/**
 * Folder sizes in the listing: a per-user setting (profile settings) that makes the listing ask
 * for `?dirsizes=true` and show each folder's total size (from the index) in its size column.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('folder sizes in the listing', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-dirsizes-');
    fs.mkdirSync(path.join(root, 'photos/2024'), { recursive: true });
    fs.writeFileSync(path.join(root, 'photos/a.jpg'), Buffer.alloc(1_000_000));
    fs.writeFileSync(path.join(root, 'photos/2024/b.jpg'), Buffer.alloc(500_000));
    fs.writeFileSync(path.join(root, 'loose.txt'), 'x');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    for (let i = 0; i < 500; i++) {
      if ((await admin.json<{ ready: boolean }>('/api/search-status')).ready) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('off by default; switched on in the profile, folders show their total size', async () => {
    const user = await createUser(admin, fm, 'sizer', {
      perm: { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: false, download: true },
    });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, user.client.token, '/files/');
    const size = () => page.getByRole('option', { name: 'photos' }).locator('.item-size').textContent();
    expect(await size()).toBe('—');

    await page.goto(`${fm.url}/settings/profile`);
    await page.getByLabel('Show the total size of folders in listings').check();
    await page.getByRole('button', { name: 'Update' }).first().click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings updated!');
    expect((await admin.json<{ dirSizes: boolean }>(`/api/users/${user.id}`)).dirSizes).toBe(true);

    await page.getByRole('link', { name: 'My files' }).click();
    await expect.poll(size).toBe('1.4 MiB');
    if (process.env.FM_SCREENSHOTS) await page.screenshot({ path: path.join(process.env.FM_SCREENSHOTS, 'folder-sizes.png') });
    expect(await page.getByRole('option', { name: 'loose.txt' }).locator('.item-size').textContent()).toBe('1 B');

    // The move dialog's folder chooser reads the same folder (the same cache entry): the sizes stay.
    await page.getByRole('option', { name: 'loose.txt' }).click();
    const chooserLoaded = page.waitForResponse((r) => /\/api\/resources\/(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search));
    await page.locator('header').getByRole('button', { name: 'Move file' }).click();
    await page.getByRole('dialog', { name: 'Move' }).getByText('photos').waitFor();
    await chooserLoaded;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await size()).toBe('1.4 MiB');
  });
});
