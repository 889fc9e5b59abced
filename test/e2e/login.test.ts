import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import { adminClient, createUser, startFm, tempDir, type FmServer, type Client } from '../helpers/server.ts';
import { loginThroughPage, useBrowser } from '../helpers/browser.ts';

const browser = useBrowser();

describe('login page', () => {
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
    await expect.poll(() => page.getByRole('heading', { name: 'Profile settings', level: 1 }).count()).toBe(1);
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'auth')?.sameSite).toBe('Strict');
    expect(await page.evaluate(() => localStorage.getItem('jwt'))).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('redirects /login to /files/ when already logged in, and keeps the session across a reload', async () => {
    const page = await browser.newPage();
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
      // A home folder per user: signup for the whole root is refused.
      const res = await admin.fetch('/api/settings', { method: 'PUT', json: { ...settings, signup: true, createUserDir: true } });
      expect(res.status).toBe(200);
      await createUser(admin, fm, 'taken-name');
    });

    it('checks the confirmation, refuses a taken username, then signs up and logs in', async () => {
      const page = await browser.newPage();
      browser.allowConsoleError(/status of 409/);
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

describe('session', () => {
  const root = tempDir('fm-e2e-root-');
  let fm: FmServer;

  beforeAll(async () => {
    fs.mkdirSync(`${root}/folder`);
    fm = await startFm({ root });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a 401 on a later call (token revoked elsewhere) ends the session and returns to the login page', async () => {
    const page = await browser.newPage();
    browser.allowConsoleError(/status of 401/);
    await page.goto(`${fm.url}/login`);
    await loginThroughPage(page, 'admin', fm.adminPassword);
    await page.getByRole('option', { name: 'folder' }).waitFor();
    const token = await page.evaluate(() => localStorage.getItem('jwt'));
    const res = await fetch(`${fm.url}/api/logout`, { method: 'POST', headers: { 'X-Auth': token! } });
    expect(res.status).toBe(200);
    await page.getByRole('option', { name: 'folder' }).dblclick();
    await page.waitForURL(/\/login\?redirect=%2Ffiles%2Ffolder%2F$/);
    expect(await page.evaluate(() => localStorage.getItem('jwt'))).toBeNull();
  });

  it('logout from the sidebar revokes the token and shows the login page', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await loginThroughPage(page, 'admin', fm.adminPassword);
    await page.getByRole('option', { name: 'folder' }).waitFor();
    const token = await page.evaluate(() => localStorage.getItem('jwt'));
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(`${fm.url}/login`);
    const res = await fetch(`${fm.url}/api/renew`, { method: 'POST', headers: { 'X-Auth': token! } });
    expect(res.status).toBe(401);
  });
});

describe('no-auth mode', () => {
  const root = tempDir('fm-e2e-root-');
  let fm: FmServer;

  beforeAll(async () => {
    fs.writeFileSync(`${root}/open.txt`, 'x');
    fm = await startFm({ root, args: ['--noauth'] });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('opens the files without a login page and offers no logout', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/`);
    await page.getByRole('option', { name: 'open.txt' }).waitFor();
    expect(page.url()).toBe(`${fm.url}/files/`);
    expect(await page.getByRole('button', { name: 'Logout' }).count()).toBe(0);
  });
});
