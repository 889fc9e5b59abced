/** A folder with 100,000 entries opens, renders only what is visible, and scrolls (the time is measured, not asserted). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

const COUNT = 100_000;
const name = (i: number) => `file-${String(i).padStart(6, '0')}.txt`;

describe('a folder with 100,000 entries', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-big-');
    const big = path.join(root, 'big');
    fs.mkdirSync(big);
    for (let i = 0; i < COUNT; i++) fs.closeSync(fs.openSync(path.join(big, name(i)), 'w'));
    fm = await startFm({ root });
    admin = await adminClient(fm);
  }, 180_000);
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('opens, keeps the page small, and scrolls to the end', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.locator('[role=option]').first().waitFor();
    let bodyDone = 0;
    page.on('requestfinished', (req) => {
      if (req.url().endsWith('/api/resources/big')) bodyDone = Date.now();
    });
    const started = Date.now();
    await page.evaluate(() => history.pushState(null, '', '/files/big/'));
    await page.getByRole('option', { name: name(0) }).waitFor({ timeout: 60_000 });
    const openMs = Date.now() - started;
    // Wall time from navigation to the first entry, and the browser's share after the body arrived (parse, sort, render).
    console.log(`100k folder: opened in ${openMs} ms; server response ${bodyDone - started} ms; browser ${Date.now() - bodyDone} ms`);

    const rendered = await page.locator('[role=option]').count();
    expect(rendered).toBeGreaterThan(5);
    expect(rendered).toBeLessThan(200);
    expect(await page.locator('[role=option]').first().getAttribute('aria-setsize')).toBe(String(COUNT));

    // Scrolling down grows the list and keeps the number of rendered rows small.
    const scroller = page.locator('.files');
    for (let i = 0; i < 8; i++) {
      await scroller.evaluate((el) => el.scrollBy(0, el.clientHeight));
      await page.waitForTimeout(150);
    }
    const lastShown = await page.locator('[role=option] .item-name-text').last().textContent();
    expect(lastShown! > name(60)).toBe(true);
    expect(await page.locator('[role=option]').count()).toBeLessThan(200);

    // End jumps to the very last entry; Ctrl+A selects all of them.
    await page.locator('[role=option]').first().focus();
    await page.keyboard.press('End');
    await page.getByRole('option', { name: name(COUNT - 1) }).waitFor();
    await page.keyboard.press('Control+a');
    await expect.poll(() => page.locator('[role=option][aria-selected=true]').count()).toBeGreaterThan(5);
  });
});
