/** Clicks while the next folder loads: the old rows are inert, and the selection follows items, not positions. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const selectedNames = (page: Page) => itemNames(page, '[role=option][aria-selected=true]');

describe('clicks during a folder load', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-load-');
    fs.mkdirSync(path.join(root, 'next'));
    fs.mkdirSync(path.join(root, 'other'));
    for (const n of ['r1.txt', 'r2.txt']) fs.writeFileSync(path.join(root, n), n);
    for (const n of ['x.txt', 'y.txt', 'z.txt']) fs.writeFileSync(path.join(root, 'next', n), n);
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('ignores clicks on the old rows while the next listing loads; the selection does not carry over by position', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'r1.txt' }).click();
    expect(await selectedNames(page)).toEqual(['r1.txt']);

    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const listed = page.waitForRequest((r) => r.url().includes('/api/resources/next'));
    await page.route(/\/api\/resources\/next\/?(\?|$)/, async (route) => {
      await held;
      await route.continue();
    });
    // Opened from the keyboard: the selection stays as it was.
    await page.getByRole('option', { name: 'next' }).focus();
    await page.keyboard.press('Enter');
    await listed;
    await page.waitForURL(`${fm.url}/files/next/`);
    const listing = page.locator('.listing');
    await expect.poll(() => listing.getAttribute('aria-busy')).toBe('true');

    // The old rows are still on screen, but no click, double click or key on them does anything.
    // r1.txt is at position 2, where next/ has z.txt: a click kept by position would select it.
    const selectedBefore = await selectedNames(page);
    await page.getByRole('option', { name: 'r1.txt' }).dispatchEvent('click');
    await page.getByRole('option', { name: 'r1.txt' }).click({ force: true });
    await page.getByRole('option', { name: 'other' }).dblclick({ force: true });
    await page.getByRole('option', { name: 'other' }).dispatchEvent('keydown', { key: 'Enter' });
    expect(await selectedNames(page)).toEqual(selectedBefore);
    expect(page.url()).toBe(`${fm.url}/files/next/`);

    release();
    await page.getByRole('option', { name: 'x.txt' }).waitFor();
    await expect.poll(() => listing.getAttribute('aria-busy')).toBe('false');
    // Nothing of the new folder is selected (kept by position, z.txt would be).
    expect(await selectedNames(page)).toEqual([]);

    // An action after the load applies to the file clicked in the new listing.
    await page.getByRole('option', { name: 'y.txt' }).click();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: 'Delete files' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => fs.existsSync(path.join(root, 'next/y.txt'))).toBe(false);
    expect(fs.readdirSync(path.join(root, 'next')).sort()).toEqual(['x.txt', 'z.txt']);
    // (.fm-trash: the delete went to the trash.)
    expect(
      fs
        .readdirSync(root)
        .filter((n) => n !== '.fm-trash')
        .sort(),
    ).toEqual(['next', 'other', 'r1.txt', 'r2.txt']);
    expect(page.url()).toBe(`${fm.url}/files/next/`);
  });
});
