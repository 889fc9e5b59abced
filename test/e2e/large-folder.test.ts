/**
 * A folder with 100,000 entries paints its first rows before the rest has arrived, renders only
 * what is visible, and scrolls (the time is printed, not asserted: bench/ measures it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

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

  it('paints the first rows before the rest has arrived, keeps the page small, and scrolls to the end', { timeout: 120_000 }, async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.locator('[role=option]').first().waitFor();
    // The rest of the folder (after the first page) is held until the first rows are checked.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let restAsked = false;
    await page.route(/\/api\/resources\/big\?offset=[1-9]/, async (route) => {
      restAsked = true;
      await held;
      await route.continue();
    });
    let firstPageDone = 0;
    page.on('requestfinished', (req) => {
      if (/\/api\/resources\/big\?offset=0&/.test(req.url())) firstPageDone = Date.now();
    });
    const restDone = page.waitForResponse((res) => /\/api\/resources\/big\?offset=[1-9]/.test(res.url()), { timeout: 60_000 });
    const started = Date.now();
    await page.evaluate(() => history.pushState(null, '', '/files/big/'));
    await page.getByRole('option', { name: name(0) }).waitFor({ timeout: 60_000 });
    const firstRowsMs = Date.now() - started;
    await expect.poll(() => restAsked).toBe(true);
    // Shown while the rest is still on its way: the first rows, and the folder's real size.
    expect(await page.getByRole('option', { name: name(1) }).isVisible()).toBe(true);
    expect(await page.locator('[role=option]').first().getAttribute('aria-setsize')).toBe(String(COUNT));
    // A selection and a keyboard cursor made meanwhile survive the arrival of the rest.
    await page.getByRole('option', { name: name(1) }).click();
    await page.keyboard.press('ArrowDown');
    release();
    await restDone;
    // (An arrow key moves the selection with the cursor.)
    await expect.poll(async () => (await itemNames(page, '[role=option][aria-selected=true]'))[0]).toBe(name(2));
    expect(await page.locator('[role=option][aria-selected=true]').count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.querySelector('.item-name-text')?.textContent)).toBe(name(2));
    // Wall time from navigation to the first entry (the measure is bench/, not here).
    console.log(
      `100k folder: first rows in ${firstRowsMs} ms (first page answered after ${firstPageDone - started} ms); whole folder after ${Date.now() - started} ms`,
    );

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
