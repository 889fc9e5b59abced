/** A batch where some items fail says which ones: one failure as a notice, several in the error prompt. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('a batch that partly fails', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-batch-');
    for (const name of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(root, name), name);
    fs.mkdirSync(path.join(root, 'dest'));
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** The server refuses requests of `method` on these names with a 403, as a rule or a permission would. */
  async function refuse(page: Page, method: string, names: string[]) {
    await page.route(
      (url) => names.some((n) => url.pathname.endsWith(`/api/resources/${n}`)),
      (route) =>
        route.request().method() === method
          ? route.fulfill({ status: 403, headers: { 'X-Fm-Error': 'forbidden', 'Content-Type': 'text/plain' }, body: '403 forbidden' })
          : route.fallback(),
    );
  }

  async function selectAll(page: Page, names: string[]) {
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: names[0] }).click();
    for (const name of names.slice(1)) await page.getByRole('option', { name }).click({ modifiers: ['Control'] });
  }

  it('deletes what it can and lists each item that failed, with the translated reason', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/403 \(Forbidden\)/);
    await refuse(page, 'DELETE', ['b.txt', 'c.txt']);
    await selectAll(page, ['a.txt', 'b.txt', 'c.txt']);
    await page.locator('header').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();

    const prompt = page.getByRole('dialog', { name: 'Error' });
    await prompt.getByText('These items could not be completed:').waitFor();
    const items = await prompt.getByRole('listitem').allInnerTexts();
    expect(items).toEqual(["b.txt: You don't have permissions to access this.", "c.txt: You don't have permissions to access this."]);
    expect(fs.existsSync(path.join(root, 'a.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(true);
    await prompt.getByRole('button', { name: 'OK' }).click();
    await expect.poll(() => prompt.count()).toBe(0);
    // The listing reloaded: a.txt is gone, the others stay.
    await expect.poll(() => page.getByRole('option', { name: 'a.txt' }).count()).toBe(0);
    expect(await page.getByRole('option', { name: 'b.txt' }).count()).toBe(1);
  });

  it('tells a single failure among several items as a notice, without a prompt', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/403 \(Forbidden\)/);
    await refuse(page, 'DELETE', ['c.txt']);
    await selectAll(page, ['b.txt', 'c.txt']);
    await page.locator('header').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alert').filter({ hasText: "You don't have permissions to access this." }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Error' }).count()).toBe(0);
    expect(fs.existsSync(path.join(root, 'b.txt'))).toBe(false);
    expect(fs.existsSync(path.join(root, 'c.txt'))).toBe(true);
  });
});
