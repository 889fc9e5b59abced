/**
 * The storage analyzer page: a treemap of the folder's largest entries with a table beside,
 * a folder tile opens that folder (click or keyboard), the breadcrumbs go back; at 390 px and in
 * the dark theme; no axe violation; a clear message when the index is off.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

const SHOTS = process.env.FM_SCREENSHOTS;

describe('storage analyzer page', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-analyze-');
    const put = (rel: string, bytes: number) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), Buffer.alloc(bytes));
    };
    for (let i = 0; i < 6; i++) put(`media/videos/v${i}.mp4`, 300_000 + i * 50_000);
    for (let i = 0; i < 8; i++) put(`media/photos/p${i}.jpg`, 40_000 + i * 5000);
    for (let i = 0; i < 5; i++) put(`docs/d${i}.pdf`, 60_000);
    put('backup.tar', 500_000);
    put('notes.txt', 2000);
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

  const tile = (page: Page, name: string) => page.getByRole('button', { name: new RegExp(`^Open ${name}, `) });

  async function open(page: Page, at = '/analyze/') {
    await openLoggedIn(page, fm.url, admin.token, at);
    await page.locator('.treemap-tile').first().waitFor();
  }

  it('shows the largest entries as tiles and in a table; a click opens a folder, the breadcrumb goes back', async () => {
    const page = await browser.newPage();
    await open(page);
    expect(await page.locator('.analyze-total').textContent()).toMatch(/ in 25 entries$/);
    // The table lists every entry of the folder, largest first.
    const rows = await page.locator('.analyze-table tbody th').allTextContents();
    expect(rows.map((r) => r.trim())).toEqual(['media', 'backup.tar', 'docs', 'notes.txt']);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'analyzer-light.png') });
    await tile(page, 'media').click();
    await page.waitForURL(`${fm.url}/analyze/media/`);
    await tile(page, 'videos').waitFor();
    await page.locator('.breadcrumbs').getByRole('link', { name: 'Home' }).click();
    await page.waitForURL(`${fm.url}/analyze/`);
    await tile(page, 'docs').waitFor();
    expect(await axeViolations(page)).toEqual([]);
  });

  it('follows changes on the server while it is open', async () => {
    const page = await browser.newPage();
    await open(page);
    fs.writeFileSync(path.join(root, 'huge.iso'), Buffer.alloc(5_000_000));
    await page.locator('.analyze-table tbody th').first().filter({ hasText: 'huge.iso' }).waitFor({ timeout: 15_000 });
    fs.rmSync(path.join(root, 'huge.iso'));
  });

  it('works with the keyboard: Tab to a folder tile, Enter opens it', async () => {
    const page = await browser.newPage();
    await open(page, '/analyze/media/');
    await tile(page, 'videos').focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${fm.url}/analyze/media/videos/`);
    await page.locator('.analyze-table').getByText('v5.mp4').waitFor();
  });

  it('fits 390 px and the dark theme, without axe violations', async () => {
    const page = await browser.newPage({ width: 390, height: 800, colorScheme: 'dark' });
    await page.emulateMedia({ colorScheme: 'dark' });
    await open(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const box = await page.locator('.treemap').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'analyzer-390-dark.png'), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
  });

  it('says so when the server runs without its index', async () => {
    const bare = await startFm({ args: ['--no-index'] });
    try {
      const client = await adminClient(bare);
      const page = await browser.newPage();
      await openLoggedIn(page, bare.url, client.token, '/analyze/');
      await page.getByText(/turned off on this server/).waitFor();
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await bare.stop();
    }
  });
});
