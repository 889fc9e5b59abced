/** Share links in a real browser: the share dialog, the public share page with a password, share management. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { withDb } from '../helpers/http-raw.ts';

interface Share {
  hash: string;
  path: string;
  expire: number;
  hasPassword: boolean;
}

describe('share links', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-share-');
    fs.mkdirSync(path.join(root, 'album/inner'), { recursive: true });
    fs.writeFileSync(path.join(root, 'album/one.txt'), 'first file');
    fs.writeFileSync(path.join(root, 'album/two.txt'), 'second file');
    fs.writeFileSync(path.join(root, 'album/inner/deep.txt'), 'deep');
    for (let i = 0; i < 130; i++) fs.writeFileSync(path.join(root, `album/inner/n${String(i).padStart(3, '0')}.txt`), String(i));
    fs.writeFileSync(path.join(root, 'memo.txt'), 'memo');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function shareDialog(page: Page, name: string) {
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name }).click();
    await page.locator('header').getByRole('button', { name: 'Share' }).click();
    return page.getByRole('dialog', { name: `Share "${name}"` });
  }

  it('shares a folder with a password; a visitor gets the password prompt, the listing and a download', async () => {
    const page = await browser.newPage();
    const dialog = await shareDialog(page, 'album');
    // No links yet: the dialog opens in create mode; a bad duration disables Share.
    await dialog.getByLabel('Time').fill('1.5');
    expect(await dialog.getByRole('button', { name: 'Share' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Time').fill('2');
    await dialog.getByLabel('Unit').selectOption('days');
    await dialog.getByLabel('Password (optional)').fill('open sesame');
    await dialog.getByRole('button', { name: 'Share' }).click();
    // List mode with the new link; the form was reset for the next one.
    const links = dialog.getByRole('list', { name: 'Share links' });
    await expect.poll(() => links.getByRole('listitem').count()).toBe(1);
    expect(await links.getByText('in 2 days').count()).toBe(1);
    // A folder gets no download link to copy.
    expect(await dialog.getByRole('button', { name: 'Copy download link' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'New' }).click();
    expect(await dialog.getByLabel('Time').inputValue()).toBe('');
    expect(await dialog.getByLabel('Unit').inputValue()).toBe('hours');
    expect(await dialog.getByLabel('Password (optional)').inputValue()).toBe('');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.getByRole('button', { name: 'Close' }).click();

    const [share] = await admin.json<Share[]>('/api/shares');
    expect([share.path, share.hasPassword]).toEqual(['/album', true]);

    // A visitor without a session, in a fresh context.
    const visitor = await browser.newPage();
    browser.allowConsoleError(/401 \(Unauthorized\)/);
    await visitor.goto(`${fm.url}/share/${share.hash}`);
    await visitor.getByRole('heading', { name: 'Password required' }).waitFor();
    await visitor.getByLabel('Password').fill('wrong password');
    await visitor.getByRole('button', { name: 'Submit' }).click();
    await visitor.getByRole('alert').filter({ hasText: 'Wrong credentials' }).waitFor();
    await visitor.getByLabel('Password').fill('open sesame');
    await visitor.getByRole('button', { name: 'Submit' }).click();
    await visitor.getByRole('heading', { name: 'album', level: 2 }).waitFor();
    expect(await visitor.getByRole('link', { name: 'one.txt' }).count()).toBe(1);
    await visitor.getByRole('img', { name: 'QR code of this link' }).waitFor();

    // One file selected: its download uses the token of the answer.
    await visitor.getByLabel('Select one.txt').check();
    const [single] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download selection' }).click()]);
    expect(single.suggestedFilename()).toBe('one.txt');
    expect(fs.readFileSync(await single.path(), 'utf8')).toBe('first file');
    // Several: an archive.
    await visitor.getByLabel('Select two.txt').check();
    const [archive] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download selection' }).click()]);
    expect(archive.suggestedFilename()).toMatch(/\.zip$/);

    // Into a sub-folder (the token carries on): 100 items, then 100 more.
    await visitor.getByRole('link', { name: 'inner' }).click();
    await visitor.waitForURL(/\/share\/[^/]+\/inner\/$/);
    await expect.poll(() => visitor.locator('.share-item').count()).toBe(100);
    await visitor.getByRole('button', { name: 'Show 31 more' }).click();
    await expect.poll(() => visitor.locator('.share-item').count()).toBe(131);
    await visitor.getByRole('link', { name: 'deep.txt' }).click();
    await visitor.getByRole('heading', { name: 'deep.txt', level: 2 }).waitFor();
    const [file] = await Promise.all([visitor.waitForEvent('download'), visitor.getByRole('button', { name: 'Download' }).click()]);
    expect(fs.readFileSync(await file.path(), 'utf8')).toBe('deep');
    expect(await visitor.getByRole('link', { name: 'Open file' }).getAttribute('href')).toMatch(/inline=true/);
  });

  it('copies a file link from the dialog and from the public page', async () => {
    const page = await browser.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fm.url });
    const dialog = await shareDialog(page, 'memo.txt');
    await dialog.getByRole('button', { name: 'Share' }).click();
    await dialog.getByRole('button', { name: 'Copy download link' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Link copied!');
    const dl = await page.evaluate(() => navigator.clipboard.readText());
    expect(await (await fetch(dl)).text()).toBe('memo');
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    // The clipboard is written asynchronously: wait until it holds the page link instead of the download link.
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(new RegExp(`^${fm.url}/share/[\\w-]+$`));
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(await dialog.getByText('Permanent').count()).toBe(1);

    await page.goto(link);
    await page.getByRole('heading', { name: 'memo.txt', level: 2 }).waitFor();
    await page.getByRole('button', { name: 'Copy link' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  });

  it('lists links in the share settings, permanent first, and deletes one after confirmation', async () => {
    const bob = await createUser(admin, fm, 'bob', { perm: { share: true, download: true, create: true } });
    await bob.client.json('/api/share/memo.txt', { method: 'POST', json: { expires: '3', unit: 'hours' } });
    await bob.client.json('/api/share/memo.txt', { method: 'POST', json: {} });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, bob.client.token, '/settings/shares');
    const rows = page.getByRole('table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.allInnerTexts()).toEqual([expect.stringMatching(/^\/memo\.txt\s+Permanent/), expect.stringMatching(/^\/memo\.txt\s+in 3 hours/)]);
    // Not an admin: no username column.
    expect(await page.getByRole('columnheader', { name: 'Username' }).count()).toBe(0);
    await rows.nth(1).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete share link' });
    expect(await confirm.textContent()).toContain('/memo.txt');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Share deleted!');
    await expect.poll(() => rows.count()).toBe(1);
    expect((await bob.client.json<Share[]>('/api/shares')).map((s) => s.expire)).toEqual([0]);

    // The admin sees everyone's links with their owners.
    const adminPage = await browser.newPage();
    await openLoggedIn(adminPage, fm.url, admin.token, '/settings/shares');
    await adminPage.getByRole('columnheader', { name: 'Username' }).waitFor();
    expect(await adminPage.getByRole('cell', { name: 'bob' }).count()).toBe(1);
  });

  it('hides the share action and the share tab without the share permission', async () => {
    const carol = await createUser(admin, fm, 'carol', { perm: { share: false, download: true } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, carol.client.token, '/files/');
    await page.getByRole('option', { name: 'memo.txt' }).click();
    expect(await page.locator('header').getByRole('button', { name: 'Share' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Profile settings' }).waitFor();
    expect(await page.getByRole('link', { name: 'Share management' }).count()).toBe(0);
  });

  it('deletes a link from the share dialog only after confirmation, the dialog staying open', async () => {
    fs.writeFileSync(path.join(root, 'twice.txt'), 'twice');
    for (const json of [{}, { expires: '2', unit: 'hours' }]) await admin.json('/api/share/twice.txt', { method: 'POST', json });
    const stored = async () => (await admin.json<Share[]>('/api/shares')).filter((s) => s.path === '/twice.txt');
    const page = await browser.newPage();
    const dialog = await shareDialog(page, 'twice.txt');
    const links = dialog.getByRole('list', { name: 'Share links' }).getByRole('listitem');
    await expect.poll(() => links.count()).toBe(2);
    const timed = links.filter({ hasText: 'in 2 hours' });
    await timed.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete share link' });
    expect(await confirm.textContent()).toContain('/twice.txt');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await links.count()).toBe(2);
    expect(await stored()).toHaveLength(2);

    await timed.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Share deleted!');
    await expect.poll(() => links.count()).toBe(1);
    expect(await links.innerText()).toMatch(/Permanent/);
    expect((await stored()).map((s) => s.expire)).toEqual([0]);
  });

  it('shows a link stored with an absurd expiry (old data, before the 100-year cap) as a dash, in the table and the dialog', async () => {
    fs.writeFileSync(path.join(root, 'old.txt'), 'old');
    const { hash } = await admin.json<Share>('/api/share/old.txt', { method: 'POST', json: {} });
    const absurd = Math.ceil(Date.now() / 1000) + 999999999 * 86400;
    await withDb(fm.dbFile, async ({ shares }) => {
      const stored = await shares.get(hash);
      await shares.update({ ...stored!, expire: absurd });
    });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/shares');
    const row = page.getByRole('table').locator('tbody tr').filter({ hasText: '/old.txt' });
    await expect.poll(() => row.innerText()).toMatch(/^\/old\.txt\s+—/);
    expect(await row.getByTitle(String(absurd)).count()).toBe(1);

    const dialog = await shareDialog(page, 'old.txt');
    const link = dialog.locator(`[data-hash="${hash}"]`);
    await expect.poll(() => link.innerText()).toMatch(/^—/);
    // The dialog refuses a duration past the cap before asking the server.
    await dialog.getByRole('button', { name: 'New' }).click();
    await dialog.getByLabel('Unit').selectOption('days');
    await dialog.getByLabel('Time').fill('36526');
    expect(await dialog.getByRole('button', { name: 'Share' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Time').fill('36525');
    expect(await dialog.getByRole('button', { name: 'Share' }).isDisabled()).toBe(false);
  });
});
