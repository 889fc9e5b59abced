/**
 * axe-core finds no violation (any rule, any impact) on the settings pages and the public share
 * page (password, folder, file) in light at 1280 px; then on a representative set of screens
 * (listing, a prompt, a preview, settings, a share page) in dark, in an RTL locale and at 390 px.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser, type PageOptions } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

async function expectNoViolations(page: Page, screen: string): Promise<void> {
  expect.soft((await axeViolations(page)).join('\n'), screen).toBe('');
}

describe('axe: settings, shares, dark, RTL and 390 px', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  const hashes: Record<'password' | 'folder' | 'file', string> = { password: '', folder: '', file: '' };

  beforeAll(async () => {
    root = tempDir('fm-e2e-axe-settings-');
    fs.mkdirSync(path.join(root, 'album/inner'), { recursive: true });
    fs.writeFileSync(path.join(root, 'album/one.txt'), 'first file');
    fs.writeFileSync(path.join(root, 'album/blob.bin'), Buffer.alloc(64, 1));
    fs.writeFileSync(path.join(root, 'memo.txt'), 'memo');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    hashes.folder = (await admin.json<{ hash: string }>('/api/share/album', { method: 'POST', json: {} })).hash;
    hashes.file = (await admin.json<{ hash: string }>('/api/share/memo.txt', { method: 'POST', json: { expires: '2', unit: 'days' } })).hash;
    hashes.password = (await admin.json<{ hash: string }>('/api/share/album/inner', { method: 'POST', json: { password: 'open sesame' } })).hash;
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function settingsPages(page: Page, token: string, label: string) {
    for (const at of ['/settings/profile', '/settings/shares', '/settings/global', '/settings/users', '/settings/users/1', '/settings/users/new']) {
      await openLoggedIn(page, fm.url, token, at);
      await page.locator('main form, main table').first().waitFor();
      await expectNoViolations(page, `${label}: ${at}`);
    }
  }

  async function sharedFolder(page: Page, label: string) {
    await page.goto(`${fm.url}/share/${hashes.folder}`);
    await page.locator('#share-name').waitFor();
    await page.locator('.share-item').first().waitFor();
    await expectNoViolations(page, `${label}: shared folder`);
  }

  it('the settings pages and the share pages (light, 1280 px)', async () => {
    const page = await browser.newPage();
    await settingsPages(page, admin.token, 'light');
    const visitor = await browser.newPage();
    browser.allowConsoleError(/401 \(Unauthorized\)/);
    await visitor.goto(`${fm.url}/share/${hashes.password}`);
    await visitor.locator('main input[type=password]').waitFor();
    await expectNoViolations(visitor, 'light: share with a password');
    await sharedFolder(visitor, 'light');
    await visitor.goto(`${fm.url}/share/${hashes.file}`);
    await visitor.locator('#share-name').waitFor();
    await expectNoViolations(visitor, 'light: shared file');
  });

  const variants: [string, PageOptions][] = [
    ['dark', { colorScheme: 'dark' }],
    ['RTL (ar)', { locale: 'ar' }],
    ['390 px', { width: 390, height: 800 }],
  ];
  for (const [label, options] of variants) {
    it(`listing, a prompt, a preview, settings and a share page (${label})`, async () => {
      const user = await createUser(admin, fm, `axe${label.replace(/\W/g, '')}`, {
        locale: options.locale ?? 'en',
        perm: { admin: false, create: true, rename: true, modify: true, delete: true, share: true, download: true },
      });
      const page = await browser.newPage(options);
      await openLoggedIn(page, fm.url, user.client.token, '/files/album/');
      await page.locator('[role=option]').first().click();
      await expectNoViolations(page, `${label}: listing with a selection`);
      await page.keyboard.press('F2');
      await page.getByRole('dialog').waitFor();
      await expectNoViolations(page, `${label}: rename prompt`);
      await page.keyboard.press('Escape');
      await openLoggedIn(page, fm.url, user.client.token, '/files/album/one.txt');
      await page.locator('.text-view-editor').waitFor();
      await expectNoViolations(page, `${label}: editor`);
      await openLoggedIn(page, fm.url, user.client.token, '/files/album/blob.bin');
      await page.locator('.file-view').waitFor();
      await expectNoViolations(page, `${label}: preview without a preview`);
      await openLoggedIn(page, fm.url, user.client.token, '/settings/profile');
      await page.locator('main form').first().waitFor();
      await expectNoViolations(page, `${label}: profile settings`);
      await sharedFolder(await browser.newPage(options), label);
    });
  }
});
