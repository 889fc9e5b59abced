/** The profile settings page: preferences and language saved to the user, the password card. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('profile settings', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-root-');
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fs.writeFileSync(`${root}/a.txt`, 'x');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('saves the preferences and switches the language, reloading only when the direction changes', async () => {
    const user = await createUser(admin, fm, 'polyglot', { locale: 'en' });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, user.client.token, '/settings');
    await page.waitForURL(/\/settings\/profile$/);
    await page.getByLabel('Use single clicks to open files and folders').check();
    await page.getByLabel('Language').selectOption('de');
    await page.getByRole('button', { name: 'Update' }).first().click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings updated!');
    const saved = await admin.json<{ singleClick: boolean; locale: string }>(`/api/users/${user.id}`);
    expect([saved.singleClick, saved.locale]).toEqual([true, 'de']);
    await expect.poll(() => page.getByRole('heading', { name: 'Profileinstellungen', level: 1 }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');

    // Single-click mode: one click opens a file.
    await page.getByRole('link', { name: 'Meine Dateien' }).click();
    await page.getByRole('option', { name: 'a.txt' }).click();
    await page.waitForURL(`${fm.url}/files/a.txt`);

    // Arabic flips the direction: the page reloads and comes back right-to-left.
    await page.goto(`${fm.url}/settings/profile`);
    await page.getByLabel('Sprache').selectOption('ar');
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Aktualisieren' }).first().click()]);
    await expect.poll(() => page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expect.poll(() => page.getByRole('heading', { name: 'إعدادات الملف الشخصي', level: 1 }).count()).toBe(1);
  });

  it("shows the WebDAV address, which a client can use with the user's credentials", async () => {
    const user = await createUser(admin, fm, 'davuser');
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, user.client.token, '/settings/profile');
    const address = page.getByLabel('WebDAV address');
    await expect.poll(() => address.inputValue()).toBe(`${fm.url}/dav/`);
    expect(await page.getByText('with your user name, davuser, and your password').count()).toBe(1);
    const auth = `Basic ${Buffer.from(`davuser:${user.password}`).toString('base64')}`;
    const res = await fetch(await address.inputValue(), { method: 'PROPFIND', headers: { Authorization: auth, Depth: '0' } });
    expect(res.status).toBe(207);
  });

  it('changes the password only when both fields match, and keeps the session', async () => {
    const user = await createUser(admin, fm, 'changer');
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, user.client.token, '/settings/profile');
    const update = page.getByRole('button', { name: 'Update' }).nth(1);
    await page.getByLabel('Current password').fill(user.password);
    await page.getByLabel('Your new password', { exact: true }).fill('another-long-password-2');
    await page.getByLabel('Confirm your new password').fill('another-long-password-3');
    expect(await update.isDisabled()).toBe(true);
    expect(await page.getByLabel('Confirm your new password').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Confirm your new password').fill('another-long-password-2');
    await update.click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Password updated!');
    const res = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'changer', password: 'another-long-password-2' }) });
    expect(res.status).toBe(200);
    // The old token was revoked; the page got a new one and still works.
    await page.getByRole('link', { name: 'My files' }).click();
    await page.getByRole('option', { name: 'a.txt' }).waitFor();
  });

  it('hides the password card for a user with a locked password', async () => {
    const user = await createUser(admin, fm, 'locked', { lockPassword: true });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, user.client.token, '/settings/profile');
    await page.getByLabel('Language').waitFor();
    expect(await page.getByRole('heading', { name: 'Change password' }).count()).toBe(0);
  });
});
