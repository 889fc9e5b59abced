/** The header outside the file browser: the page's name, and search where there are files to search. */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;

const pageName = (page: Page) => page.locator('header .header-page-name');
const searchButton = (page: Page) => page.locator('header').getByRole('button', { name: 'Search' });

describe('header outside the file browser', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-header-');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs/report.txt'), 'r');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [390, 'dark'],
  ] as const) {
    it(`names each settings page and offers search there (${width} px)`, async () => {
      const page = await browser.newPage({ width, height: 800, colorScheme });
      await openLoggedIn(page, fm.url, admin.token, '/settings/profile');
      await expect.poll(() => pageName(page).textContent()).toBe('Profile settings');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `header-settings-${width}.png`) });
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Global settings' }).click();
      await expect.poll(() => pageName(page).textContent()).toBe('Global settings');
      expect(await page.title()).toMatch(/^Global settings - /);
      // Search from a settings page works: it searches the files from the root.
      await searchButton(page).click();
      const input = page.getByRole('searchbox');
      await input.fill('report');
      await input.press('Enter');
      await page.getByRole('link', { name: 'docs/report.txt' }).waitFor();
    });
  }

  it('names the error pages, with search for a signed-in user only', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/404');
    await expect.poll(() => pageName(page).textContent()).toBe(await page.getByRole('alert').locator('h2').textContent());
    expect(await searchButton(page).count()).toBe(1);
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'header-404.png') });

    const visitor = await browser.newPage();
    await visitor.goto(`${fm.url}/403`);
    await expect.poll(() => pageName(visitor).textContent()).toBe(await visitor.getByRole('alert').locator('h2').textContent());
    expect(await searchButton(visitor).count()).toBe(0);
  });

  it('names the shared item on a share page, without search', async () => {
    const res = await admin.fetch('/api/share/docs', { method: 'POST', json: {} });
    const { hash } = (await res.json()) as { hash: string };
    const visitor = await browser.newPage({ width: 390, height: 800 });
    await visitor.goto(`${fm.url}/share/${hash}`);
    await expect.poll(() => pageName(visitor).textContent()).toBe('docs');
    expect(await searchButton(visitor).count()).toBe(0);
    if (SHOTS) await visitor.screenshot({ path: path.join(SHOTS, 'header-share.png') });
  });
});
