/** The 404, 500 and connection-lost screens are not dead ends: Back, Home and Retry, which loads again and recovers. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const names = (page: Page) => itemNames(page);
const heading = (page: Page) => page.getByRole('alert').getByRole('heading');
const button = (page: Page, name: string) => page.locator('.error-screen-actions').getByRole(name === 'Home' ? 'link' : 'button', { name, exact: true });

describe('error screens', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-error-screens-');
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

  it('404: Retry finds the folder once it exists, Back and Home leave the screen', async () => {
    browser.allowConsoleError(/404 \(Not Found\)/);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/');
    await page.locator('[role=option]').first().waitFor();
    await page.goto(`${fm.url}/files/later/`);
    await expect.poll(() => heading(page).innerText()).toBe("This location can't be reached.");

    fs.mkdirSync(path.join(root, 'later'));
    fs.writeFileSync(path.join(root, 'later/b.txt'), 'b');
    await button(page, 'Retry').click();
    await expect.poll(() => names(page)).toEqual(['b.txt']);
    expect(page.url()).toBe(`${fm.url}/files/later/`);

    fs.rmSync(path.join(root, 'later'), { recursive: true });
    await page.reload();
    await button(page, 'Back').click();
    await page.waitForURL(`${fm.url}/files/docs/`);
    await expect.poll(() => names(page)).toEqual(['a.txt']);

    await page.goto(`${fm.url}/files/later/`);
    await button(page, 'Home').click();
    await page.waitForURL(`${fm.url}/files/`);
    await expect.poll(() => names(page)).toEqual(['docs']);
  });

  it('500: Retry loads again and recovers once the server answers', async () => {
    browser.allowConsoleError(/500 \(Internal Server Error\)/);
    const page = await browser.newPage();
    let broken = true;
    await page.route(/\/api\/resources\/docs(\?|$)/, (route) =>
      broken
        ? route.fulfill({ status: 500, contentType: 'text/plain', headers: { 'X-Fm-Error': 'internal' }, body: '500 Internal Server Error: internal error\n' })
        : route.fallback(),
    );
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/');
    await expect.poll(() => heading(page).innerText()).toBe('Something really went wrong.');
    broken = false;
    await button(page, 'Retry').click();
    await expect.poll(() => names(page)).toEqual(['a.txt']);
  });

  it('connection lost: retries by itself when the browser is online again', async () => {
    browser.allowConsoleError(/net::ERR_FAILED|Failed to load resource/);
    const page = await browser.newPage();
    // The server cannot be reached while the browser still believes it is online.
    const docsListing = /\/api\/resources\/docs(\?|$)/;
    await page.route(docsListing, (route) => route.abort('failed'));
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/');
    await expect.poll(() => heading(page).innerText()).toBe("The server can't be reached.");
    await page.unroute(docsListing);
    // The browser going offline and online again fires 'online': the screen loads again by itself.
    await page.context().setOffline(true);
    await page.context().setOffline(false);
    await expect.poll(() => names(page)).toEqual(['a.txt']);
  });
});
