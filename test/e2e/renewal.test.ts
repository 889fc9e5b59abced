/** A failed token renewal is told to the user, who keeps working until the token expires and then meets the login page. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const names = (page: Page) => itemNames(page);
const RENEW_FAILED = 'Your session could not be renewed. You will be asked to log in again when it expires.';

describe('token renewal', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-renewal-');
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

  it('a refused renewal shows one notice, work goes on, and the expiry leads to the login page', async () => {
    browser.allowConsoleError(/401 \(Unauthorized\)/);
    const page = await browser.newPage();
    await page.clock.install();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await expect.poll(() => names(page)).toEqual(['docs']);

    // From now on every listing asks for a renewal, and the server refuses it.
    let renewals = 0;
    await page.route('**/api/renew', (route) => {
      renewals++;
      return route.fulfill({ status: 401, contentType: 'text/plain', body: '401 Unauthorized\n' });
    });
    await page.route('**/api/resources/**', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'x-renew-token': 'true' } });
    });

    await page.getByRole('option', { name: 'docs' }).dblclick();
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    expect(await notice.locator('.notice-message p').allInnerTexts()).toEqual([RENEW_FAILED, '401 Unauthorized']);
    await expect.poll(() => names(page)).toEqual(['a.txt']);

    // Still logged in and working; a second refusal does not repeat the notice.
    await page.goBack();
    await expect.poll(() => names(page)).toEqual(['docs']);
    await expect.poll(() => renewals).toBe(2);
    expect(await notice.count()).toBe(1);
    expect(page.url()).toBe(`${fm.url}/files/`);

    const { exp } = JSON.parse(Buffer.from(admin.token.split('.')[1], 'base64url').toString()) as { exp: number };
    await page.clock.fastForward(exp * 1000 - Date.now() + 1000);
    await page.waitForURL(/\/login\?redirect=/);
  });

  it('a renewal lost on the network is told the same way, without a server text', async () => {
    browser.allowConsoleError(/net::ERR_FAILED|Failed to load resource/);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await expect.poll(() => names(page)).toEqual(['docs']);
    await page.route('**/api/renew', (route) => route.abort('failed'));
    await page.route('**/api/resources/**', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, headers: { ...response.headers(), 'x-renew-token': 'true' } });
    });
    await page.getByRole('option', { name: 'docs' }).dblclick();
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    expect(await notice.locator('.notice-message p').allInnerTexts()).toEqual([RENEW_FAILED]);
    await expect.poll(() => names(page)).toEqual(['a.txt']);
  });
});
