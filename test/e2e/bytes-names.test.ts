/** A file whose name is not UTF-8, in a real browser: listed with the byte marked, its info, downloaded, renamed. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT, adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const names = (page: Page) => itemNames(page);
const header = (page: Page) => page.locator('header');
/** "café.txt" in Latin-1 (0xE9 alone is not UTF-8), and a folder "d\x80ir". */
const latin1 = (s: string) => Buffer.from(s, 'latin1');

describe('names that are not UTF-8', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  const at = (name: string) => Buffer.concat([Buffer.from(`${root}/`), latin1(name)]);

  beforeAll(async () => {
    root = tempDir('fm-e2e-bytes-');
    fs.writeFileSync(at('caf\xe9.txt'), 'hello bytes');
    fs.mkdirSync(at('d\x80ir'));
    fs.writeFileSync(Buffer.concat([at('d\x80ir'), Buffer.from('/inside.txt')]), 'in');
    fs.writeFileSync(path.join(root, 'plain.txt'), 'plain');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists, shows the info of, downloads and renames such a file, and opens such a folder', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.locator('[role=option]').first().waitFor();
    expect(await names(page)).toEqual(['d\\x80ir', 'caf\\xE9.txt', 'plain.txt']);
    const row = page.getByRole('option', { name: 'caf\\xE9.txt' });
    expect(await row.locator('.name-byte').allTextContents()).toEqual(['\\xE9']);
    expect(await row.locator('.item-name').getAttribute('title')).toBe('caf\\xE9.txt\nName bytes: 63 61 66 E9 2E 74 78 74');
    await page.screenshot({ path: path.join(PROJECT_ROOT, 'test-results', 'bytes-names-listing.png') });
    // The mosaic and gallery views show the same marked name (and then back to the list).
    for (const cls of ['listing-mosaic', 'listing-gallery', 'listing-list']) {
      await page.getByRole('button', { name: 'Switch view' }).click();
      await expect.poll(() => page.locator('.listing').getAttribute('class')).toContain(cls);
      expect(await row.locator('.name-byte').allTextContents()).toEqual(['\\xE9']);
      if (cls === 'listing-gallery') await page.screenshot({ path: path.join(PROJECT_ROOT, 'test-results', 'bytes-names-gallery.png') });
    }

    // Info: the name with its byte marked, and a checksum of the right file.
    await row.click();
    await header(page).getByRole('button', { name: 'Info' }).click();
    const info = page.getByRole('dialog');
    expect(await info.locator('.info-name').textContent()).toBe('caf\\xE9.txt');
    expect(await info.locator('.info-name .name-byte').textContent()).toBe('\\xE9');
    await info.locator('[data-checksum=md5]').click();
    await expect.poll(() => info.locator('[data-checksum-value=md5]').textContent()).toBe(createHash('md5').update('hello bytes').digest('hex'));
    await info.getByRole('button', { name: 'OK' }).click();

    // Download: the exact content. Chromium rejects filename* bytes that are not UTF-8 and takes the ASCII fallback.
    const [download] = await Promise.all([page.waitForEvent('download'), header(page).getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('caf_.txt');
    expect(fs.readFileSync(await download.path(), 'utf8')).toBe('hello bytes');

    // Rename: edited in its display form, the byte kept.
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    const input = dialog.getByRole('textbox');
    expect(await input.inputValue()).toBe('caf\\xE9.txt');
    expect(await dialog.textContent()).toContain('Bytes that are not UTF-8 are written as \\xHH');
    await input.fill('caf\\xE9-2.txt');
    await page.keyboard.press('Enter');
    await expect.poll(() => names(page)).toEqual(['d\\x80ir', 'caf\\xE9-2.txt', 'plain.txt']);
    expect(fs.readFileSync(at('caf\xe9-2.txt'), 'utf8')).toBe('hello bytes');
    expect(fs.existsSync(at('caf\xe9.txt'))).toBe(false);

    // A folder whose name is not UTF-8: its address keeps the escaped string, the breadcrumb marks the byte.
    await page.getByRole('option', { name: 'd\\x80ir' }).dblclick();
    await page.waitForURL(`${fm.url}/files/d%EF%9E%80ir/`);
    await expect.poll(() => names(page)).toEqual(['inside.txt']);
    const crumb = page.getByRole('navigation', { name: 'Location' }).getByRole('link').last();
    expect(await crumb.textContent()).toBe('d\\x80ir');
    expect(await crumb.locator('.name-byte').textContent()).toBe('\\x80');
    expect(await page.title()).toBe('d\\x80ir - fm');
  });
});
