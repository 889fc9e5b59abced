/** A render failure shows the root error screen (message, Retry, Home) instead of a blank page, and the page recovers. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const USERS = /\/api\/users$/;

describe('root error boundary', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-root-');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'a.txt'), 'a');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Makes the users API answer an object where a list belongs: the users page throws while rendering it. */
  async function breakUsers(page: Page): Promise<void> {
    await page.route(USERS, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: '{"users":[]}' }));
  }

  const names = (page: Page) => itemNames(page);

  it('shows the message with Retry, which renders the page again once the server answers well', async () => {
    const page = await browser.newPage();
    // React and the boundary report the failure on the console.
    browser.allowConsoleError(/./);
    await breakUsers(page);
    await openLoggedIn(page, fm.url, admin.token, '/settings/users');
    const screen = page.getByRole('alert').filter({ hasText: 'This page stopped working.' });
    await screen.waitFor();
    expect(await screen.locator('.crash-message').textContent()).toMatch(/\S/);
    expect(await page.getByRole('button', { name: 'Home' }).isVisible()).toBe(true);

    await page.unroute(USERS);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('cell', { name: 'admin', exact: true }).waitFor();
    expect(await page.getByText('This page stopped working.').count()).toBe(0);
    expect(page.url()).toBe(`${fm.url}/settings/users`);
  });

  it('goes Home from the error screen', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/./);
    await breakUsers(page);
    await openLoggedIn(page, fm.url, admin.token, '/settings/users');
    await page.getByText('This page stopped working.').waitFor();

    await page.getByRole('button', { name: 'Home' }).click();
    await page.waitForURL(`${fm.url}/files/`);
    await expect.poll(() => names(page)).toEqual(['docs', 'a.txt']);
  });
});
