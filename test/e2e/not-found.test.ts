/** The 404 screens (spec §8): a missing file reads "Cannot find this file", a missing folder or the /404 page "This location can't be reached.". */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

const FILE = 'Cannot find this file';
const LOCATION = "This location can't be reached.";

describe('not-found screens', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-404-');
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs/a.txt'), 'a');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const screen = (page: Page) => page.getByRole('alert').getByRole('heading');

  it('names a missing file as a file and a missing folder or the /404 route as a location', async () => {
    // The browser logs each 404 answer of the API.
    browser.allowConsoleError(/404 \(Not Found\)/);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/missing.txt');
    await expect.poll(() => screen(page).innerText()).toBe(FILE);
    expect(await page.title()).toContain(FILE);
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/gone/');
    await expect.poll(() => screen(page).innerText()).toBe(LOCATION);
    await openLoggedIn(page, fm.url, admin.token, '/404');
    await expect.poll(() => screen(page).innerText()).toBe(LOCATION);
  });

  it('does the same on a public share page', async () => {
    browser.allowConsoleError(/404 \(Not Found\)/);
    const { hash } = await admin.json<{ hash: string }>('/api/share/docs', { method: 'POST', json: {} });
    const page = await browser.newPage();
    await page.goto(`${fm.url}/share/${hash}/missing.txt`);
    await expect.poll(() => screen(page).innerText()).toBe(FILE);
    await page.goto(`${fm.url}/share/${hash}/gone/`);
    await expect.poll(() => screen(page).innerText()).toBe(LOCATION);
    await page.goto(`${fm.url}/share/no-such-link-hash`);
    await expect.poll(() => screen(page).innerText()).toBe(LOCATION);
  });
});
