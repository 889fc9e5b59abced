/**
 * Single sign-on in Chromium against a real OpenID provider on 127.0.0.1 (oidc-provider and its
 * login page): the "Sign in with <name>" button, first login, admin by group, logout, and the
 * login page's message when the provider's answer is refused or the provider is down, with the
 * password form still working.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFm } from '../helpers/cli.ts';
import { loginThroughPage, openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { startProvider, type TestProvider } from '../helpers/oidc-provider.ts';
import { adminClient, startFm, type FmServer } from '../helpers/server.ts';

/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `sso-${name}.png`), fullPage: true });
};

describe('single sign-on in the browser', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let op: TestProvider;
  const configSet = (...args: string[]) => runFm(['config', 'set', '-d', fm.dbFile, ...args]);

  beforeAll(async () => {
    fm = await startFm();
    op = await startProvider(`${fm.url}/api/auth/oidc/callback`);
    const set = await configSet(
      ...['--oidc-issuer', op.issuer, '--oidc-client-id', op.clientId, '--oidc-client-secret', op.clientSecret],
      ...['--oidc-groups-claim', 'groups', '--oidc-admin-group', 'fm-admins', '--oidc-name', 'Test SSO'],
      ...['--create-user-dir'],
    );
    expect(set.code, set.stderr).toBe(0);
  });
  afterAll(async () => {
    await op?.stop();
    await fm?.stop();
  });

  /** Clicks "Sign in with Test SSO" and signs in on the provider's own login page. */
  async function signIn(page: Page, login: string, from = '/login'): Promise<void> {
    // The provider's development page imports a web font; the test browser has no internet.
    browser.allowConsoleError(/fonts\.googleapis|net::ERR|127\.0\.0\.1:\d+\/favicon\.ico/);
    await page.goto(`${fm.url}${from}`);
    await page.getByRole('link', { name: 'Sign in with Test SSO' }).click();
    await page.locator('input[name=login]').fill(login);
    await page.locator('input[name=password]').fill('any password');
    await page.locator('button[type=submit]').click();
  }

  it('signs a new user in through the provider, creates them, and logs out', async () => {
    op.accounts.set('u-nia', { preferred_username: 'nia', groups: ['staff'] });
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await shot(page, 'login');
    await signIn(page, 'u-nia');
    await page.waitForURL(/\/files\/$/);
    expect(page.url()).not.toContain('oidc');
    const user = await page.evaluate(() => JSON.parse(atob(localStorage.getItem('jwt')!.split('.')[1])).user);
    expect(user).toMatchObject({ username: 'nia', perm: { admin: false, execute: false } });
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`${fm.url}/files/`);
    await page.waitForURL(/\/login\?redirect=/);
  });

  it('makes a member of the admin group an admin, and returns to the page that asked for a login', async () => {
    op.accounts.set('u-otto', { preferred_username: 'otto', groups: ['fm-admins'] });
    const page = await browser.newPage();
    // Started from a page that needs a session: back there once signed in.
    await signIn(page, 'u-otto', '/settings/global');
    await page.waitForURL(/\/settings\/global$/);
    await page.getByText('Global settings').first().waitFor();
    const user = await page.evaluate(() => JSON.parse(atob(localStorage.getItem('jwt')!.split('.')[1])).user);
    expect(user).toMatchObject({ username: 'otto', perm: { admin: true } });
  });

  it('says why on the login page when the provider’s answer is refused, and the password still works', async () => {
    op.accounts.set('u-pia', { preferred_username: 'pia' });
    op.tamper.nonce = 'not-the-one-fm-sent';
    try {
      const page = await browser.newPage({ width: 390, height: 844 });
      await signIn(page, 'u-pia');
      await page.getByRole('alert').getByText("The sign-in provider's answer was not accepted").waitFor();
      await shot(page, 'refused-390');
      await loginThroughPage(page, 'admin', fm.adminPassword);
      await page.waitForURL(/\/files\/$/);
    } finally {
      delete op.tamper.nonce;
    }
  });

  it('shows and changes the provider on the global settings page, with the admin’s password', async () => {
    const admin = await adminClient(fm);
    const page = await browser.newPage({ height: 1400 });
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    const card = page.getByRole('form', { name: 'Single sign-on (OpenID Connect)' });
    await card.getByText(`${fm.url}/api/auth/oidc/callback`).waitFor();
    expect(await card.getByLabel('Issuer URL').inputValue()).toBe(op.issuer);
    expect(await card.getByLabel('Client secret').inputValue()).toBe('');
    await card.getByText('A secret is stored').waitFor();
    await card.getByLabel('Name on the login page').fill('Acme SSO');
    await card.getByLabel('Current password').fill(fm.adminPassword);
    await card.scrollIntoViewIfNeeded();
    await shot(page, 'settings');
    await card.getByRole('button', { name: 'Update' }).click();
    await page.getByText('Settings updated!').waitFor();
    const login = await browser.newPage();
    await login.goto(`${fm.url}/login`);
    // The secret was kept: signing in still works.
    op.accounts.set('u-quin', { preferred_username: 'quin' });
    browser.allowConsoleError(/fonts\.googleapis|net::ERR|127\.0\.0\.1:\d+\/favicon\.ico/);
    await login.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
    await login.locator('input[name=login]').fill('u-quin');
    await login.locator('input[name=password]').fill('any password');
    await login.locator('button[type=submit]').click();
    await login.waitForURL(/\/files\/$/);
    expect((await configSet('--oidc-name', 'Test SSO')).code).toBe(0);
  });

  it('says the provider cannot be reached when it is down', async () => {
    const down = await startProvider(`${fm.url}/api/auth/oidc/callback`);
    await down.stop();
    expect((await configSet('--oidc-issuer', down.issuer)).code).toBe(0);
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await page.getByRole('link', { name: 'Sign in with Test SSO' }).click();
    await page.getByRole('alert').getByText('The sign-in provider could not be reached').waitFor();
    await shot(page, 'unavailable');
  });
});
