/**
 * Two-factor login in the browser: enrolment on the profile page (QR code, key, one code, the
 * recovery codes shown once), the login page asking for a code after the password, a recovery
 * code instead of a code, and the policy leading a user without it to enrol.
 */
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jumpClock } from '../helpers/clock.ts';
import { loginThroughPage, openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';

/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `two-factor-${name}.png`), fullPage: true });
};
const codeOf = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret) }).generate();

describe('two-factor login in the browser', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fm = await startFm();
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('enrols on the profile page, then logs in with password and code, and with a recovery code', async () => {
    const lena = await createUser(admin, fm, 'lena');
    const page = await browser.newPage({ width: 390, height: 844 });
    await openLoggedIn(page, fm.url, lena.client.token, '/settings/profile');
    const card = page.getByRole('region', { name: 'Two-factor login' });
    await card.getByRole('button', { name: 'Set up' }).click();
    await card.getByRole('img', { name: 'Two-factor login' }).waitFor();
    const secret = await card.getByLabel('Key').inputValue();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('totpCode');
    await shot(page, 'enrol-390');
    await card.getByLabel('Code', { exact: true }).fill(codeOf(secret));
    await card.getByRole('button', { name: 'Confirm' }).click();

    const codes = card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    const recovery = await codes.allInnerTexts();
    await card.getByText('Two-factor login is on: logging in asks for a code').waitFor();
    await card.getByRole('button', { name: 'Copy the codes' }).waitFor();
    await shot(page, 'codes-390');

    // Log out, log in: the password first, then the code the page asks for.
    browser.allowConsoleError(/status of 401/);
    const login = await browser.newPage();
    await login.goto(`${fm.url}/login`);
    await loginThroughPage(login, 'lena', lena.password);
    const codeField = login.getByLabel('Two-factor code');
    await codeField.waitFor();
    expect(await codeField.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeField.getAttribute('inputmode')).toBe('numeric');
    await expect.poll(() => login.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('otp');
    await shot(login, 'login-code');
    jumpClock(30_000);
    await codeField.fill(codeOf(secret));
    await codeField.press('Enter');
    await login.waitForURL(/\/files\/$/);

    // A recovery code works once in place of a code.
    const again = await browser.newPage({ colorScheme: 'dark' });
    await again.goto(`${fm.url}/login`);
    await loginThroughPage(again, 'lena', lena.password);
    await again.getByLabel('Two-factor code').fill(recovery[0]);
    await shot(again, 'login-code-dark');
    await again.getByRole('button', { name: 'Login' }).click();
    await again.waitForURL(/\/files\/$/);
  });

  it('says so when the code is wrong', async () => {
    const mia = await createUser(admin, fm, 'mia');
    const { secret } = await mia.client.json<{ secret: string }>(`/api/users/${mia.id}/totp`, { method: 'POST' });
    await mia.client.json(`/api/users/${mia.id}/totp`, { method: 'PUT', json: { code: codeOf(secret) } });
    browser.allowConsoleError(/status of 40[13]/);
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await loginThroughPage(page, 'mia', mia.password);
    await page.getByLabel('Two-factor code').fill('000000');
    await page.getByRole('button', { name: 'Login' }).click();
    await page.getByRole('alert').getByText('Wrong or already used code').waitFor();
  });

  it('leads a user the policy asks for two-factor login to enrol after login', async () => {
    const nora = await createUser(admin, fm, 'nora');
    expect((await admin.fetch('/api/settings', { method: 'PUT', json: { totpRequired: 'all' } })).status).toBe(200);
    try {
      const page = await browser.newPage({ colorScheme: 'dark' });
      await page.goto(`${fm.url}/login`);
      await loginThroughPage(page, 'nora', nora.password);
      await page.waitForURL(/\/settings\/profile$/);
      const card = page.getByRole('region', { name: 'Two-factor login' });
      await card.getByText('Your administrator requires two-factor login: set it up now.').waitFor();
      await shot(page, 'required-dark');
    } finally {
      await admin.fetch('/api/settings', { method: 'PUT', json: { totpRequired: 'none' } });
    }
  });

  it('offers the policy on the global settings page', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    const general = page.getByRole('form', { name: 'Global settings' });
    await general.getByLabel('Two-factor login required for').selectOption('admins');
    await general.getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<{ totpRequired: string }>('/api/settings')).totpRequired).toBe('admins');
    await general.getByLabel('Two-factor login required for').scrollIntoViewIfNeeded();
    await shot(page, 'policy');
    await admin.fetch('/api/settings', { method: 'PUT', json: { totpRequired: 'none' } });
  });
});
