/** Access tokens on the profile page: made with a name, lifetime, folder and read-only flag, shown once, listed, deleted after confirmation. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('access tokens on the profile page', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-tokens-');
    fs.mkdirSync(path.join(root, 'dana/reports'), { recursive: true });
    fs.writeFileSync(path.join(root, 'dana/reports/q1.txt'), 'q1');
    fs.writeFileSync(path.join(root, 'dana/private.txt'), 'private');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const bearer = (token: string, pathname: string, init: RequestInit = {}) =>
    fetch(`${fm.url}${pathname}`, { ...init, headers: { Authorization: `Bearer ${token}` } });

  it('makes a read-only token for a folder, shows it once, and deletes it after confirmation', async () => {
    const dana = await createUser(admin, fm, 'dana', { scope: '/dana' });
    const page = await browser.newPage({ width: 390, height: 844 });
    await openLoggedIn(page, fm.url, dana.client.token, '/settings/profile');
    const card = page.getByRole('region', { name: 'Access tokens' });
    await card.getByLabel('Name').fill('report sync');
    await card.getByLabel('Expires').selectOption('90');
    await card.getByLabel('Limit to folder (optional)').fill('/reports');
    await card.getByLabel('Read only').check();
    await card.getByRole('button', { name: 'Create token' }).click();

    const secret = card.getByLabel('New token');
    await expect.poll(() => secret.inputValue()).toMatch(/^fmpat_/);
    const token = await secret.inputValue();
    await card.getByText('Copy the token now: it is shown only this once.').waitFor();
    const row = card.getByRole('row', { name: /report sync/ });
    // The list refetches after the creation: wait for the row, then read it.
    await expect.poll(() => row.getByRole('cell').allInnerTexts()).toEqual(expect.arrayContaining(['report sync', 'Read only', '/reports', 'Not yet']));
    // The form is ready for the next one.
    expect(await card.getByLabel('Name').inputValue()).toBe('');

    // The token works as made: that folder only, reads only.
    const listing = (await (await bearer(token, '/api/resources/')).json()) as { items: { name: string }[] };
    expect(listing.items.map((i) => i.name)).toEqual(['q1.txt']);
    expect((await bearer(token, '/api/resources/new.txt', { method: 'POST' })).status).toBe(403);

    // A reload no longer shows the secret, only the row (now used).
    await page.reload();
    await card.getByRole('row', { name: /report sync/ }).waitFor();
    expect(await card.getByLabel('New token').count()).toBe(0);
    expect(await card.getByRole('cell', { name: 'Not yet' }).count()).toBe(0);

    await card.getByRole('button', { name: 'Delete report sync' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete access token' });
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => card.getByRole('row', { name: /report sync/ }).count()).toBe(0);
    expect((await bearer(token, '/api/resources/')).status).toBe(401);
  });

  it('is not offered without authentication, where every request is the admin', async () => {
    const open = await startFm({ root, args: ['--noauth'] });
    try {
      const page = await browser.newPage();
      await page.goto(`${open.url}/settings/profile`);
      await page.getByRole('heading', { name: 'Profile settings', level: 1 }).waitFor();
      expect(await page.getByRole('region', { name: 'Access tokens' }).count()).toBe(0);
    } finally {
      await open.stop();
    }
  });
});
