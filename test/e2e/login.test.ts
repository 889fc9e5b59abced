import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { adminClient, createUser, startFm, tempDir, type FmServer, type Client } from '../helpers/server.ts';
import { loginThroughPage, useBrowser } from '../helpers/browser.ts';

describe('login page', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  const root = tempDir('fm-e2e-root-');

  beforeAll(async () => {
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('sends a visitor of a protected page to /login and back to it after logging in', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/settings/profile`);
    await page.waitForURL(/\/login\?redirect=%2Fsettings%2Fprofile$/);
    expect(await page.title()).toBe('Login - fm');
    await loginThroughPage(page, 'admin', fm.adminPassword);
    await page.waitForURL(`${fm.url}/settings/profile`);
    await expect.poll(() => page.getByRole('heading', { name: 'Profile settings' }).count()).toBe(1);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'auth')?.sameSite).toBe('Strict');
    expect(await page.evaluate(() => localStorage.getItem('jwt'))).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('redirects /login to /files/ when already logged in, and keeps the session across a reload', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/status of 404.*\/api\/usage\//);
    await page.goto(`${fm.url}/login`);
    await loginThroughPage(page, 'admin', fm.adminPassword);
    await page.waitForURL(`${fm.url}/files/`);
    await page.goto(`${fm.url}/login`);
    await page.waitForURL(`${fm.url}/files/`);
  });

  it('shows wrong credentials for a bad password and never leaves the page', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/status of 403/);
    await page.goto(`${fm.url}/login?redirect=%2Fsettings%2Fprofile`);
    await loginThroughPage(page, 'admin', 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong credentials');
    expect(page.url()).toContain('/login');
  });

  it('ignores a redirect query that points to another site', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/status of 404.*\/api\/usage\//);
    await page.goto(`${fm.url}/login?redirect=${encodeURIComponent('//evil.example/')}`);
    await loginThroughPage(page, 'admin', fm.adminPassword);
    await page.waitForURL(`${fm.url}/files/`);
  });

  it('offers no signup toggle while signup is disabled', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await page.getByLabel('Username').waitFor();
    expect(await page.getByRole('button', { name: 'Create an account' }).count()).toBe(0);
    expect(await page.getByLabel('Password confirmation').count()).toBe(0);
  });

  describe('with signup enabled', () => {
    beforeAll(async () => {
      const settings = await admin.json<Record<string, unknown>>('/api/settings');
      const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...settings, signup: true } });
      expect(res.status).toBe(200);
      await createUser(admin, fm, 'taken-name');
    });

    it('checks the confirmation, refuses a taken username, then signs up and logs in', async () => {
      const page = await browser.newPage();
      browser.allowConsoleError(/status of 409/);
      browser.allowConsoleError(/status of 404.*\/api\/usage\//);
      await page.goto(`${fm.url}/login`);
      await page.getByRole('button', { name: 'Create an account' }).click();
      await page.getByLabel('Username').fill('newcomer');
      await page.getByLabel('Password', { exact: true }).fill('a-long-signup-password-1');
      await page.getByLabel('Password confirmation').fill('something-else-entirely');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe("Passwords don't match");

      await page.getByLabel('Username').fill('taken-name');
      await page.getByLabel('Password confirmation').fill('a-long-signup-password-1');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toBe('Username already taken');

      await page.getByLabel('Username').fill('newcomer');
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL(`${fm.url}/files/`);
      const users = await admin.json<Array<{ username: string; perm: { admin: boolean } }>>('/api/users');
      expect(users.find((u) => u.username === 'newcomer')?.perm.admin).toBe(false);
    });
  });
});
