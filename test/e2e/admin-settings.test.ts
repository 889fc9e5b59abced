/** Administration in a real browser: users (create, edit, delete), global settings (chunk size, rules, hooks), admin-only routes. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

interface UserDto {
  id: number;
  username: string;
  scope: string;
  locale: string;
  lockPassword: boolean;
  perm: Record<string, boolean>;
  rules: { allow: boolean; path: string; regex: boolean; regexp: { raw: string } }[];
}
interface SettingsDto {
  signup: boolean;
  createUserDir: boolean;
  tus: { chunkSize: number; retryCount: number };
  rules: UserDto['rules'];
  shell: string[];
  commands: Record<string, string[]>;
  defaults: { locale: string; perm: Record<string, boolean> };
}

describe('administration', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-admin-');
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

  /** Answers the current-password prompt the users API needs under json auth. */
  async function confirmPassword(page: Page) {
    const prompt = page.getByRole('dialog', { name: 'Confirm with your password' });
    await prompt.getByLabel('Enter your current password to confirm this change.').fill(fm.adminPassword);
    await prompt.getByRole('button', { name: 'OK' }).click();
  }

  /** The answer to the page's next call of the users API with this method. */
  const usersCall = (page: Page, method: string) =>
    page.waitForResponse((r) => /^\/api\/users(\/\d+)?$/.test(new URL(r.url()).pathname) && r.request().method() === method);

  it('creates a user, edits it, and deletes it after the confirmation', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/users');
    await page.getByRole('link', { name: 'New' }).click();
    await page.waitForURL(/\/settings\/users\/new$/);
    await page.getByRole('heading', { name: 'New user', level: 2 }).waitFor();
    expect(await page.title()).toBe('New user - fm');
    await page.getByLabel('Username', { exact: true }).fill('dora');
    await page.getByLabel('Password', { exact: true }).fill('a-very-long-password-1');
    await page.getByLabel('Scope').fill('/dora');
    await page.getByLabel('Delete files and folders').uncheck();
    // A path rule.
    await page.getByRole('button', { name: 'New rule' }).click();
    await page.getByLabel('Path', { exact: true }).fill('/secret');
    await page.getByRole('button', { name: 'Save' }).click();
    await confirmPassword(page);
    await expect.poll(() => page.getByRole('status').textContent()).toBe('User created!');
    await page.waitForURL(/\/settings\/users\/\d+$/);
    const id = Number(page.url().split('/').pop());
    let dora = await admin.json<UserDto>(`/api/users/${id}`);
    expect([dora.username, dora.scope, dora.perm.delete, dora.perm.create]).toEqual(['dora', '/dora', false, true]);
    expect(dora.rules).toEqual([{ allow: false, path: '/secret', regex: false, regexp: { raw: '' } }]);
    await page.getByRole('heading', { name: 'dora', level: 2 }).waitFor();

    // A change of language needs no password.
    await page.getByLabel('Language').selectOption('fr');
    const languageSaved = usersCall(page, 'PUT');
    await page.getByRole('button', { name: 'Save' }).click();
    expect((await languageSaved).status()).toBe(200);
    await expect.poll(() => page.getByRole('status').last().textContent()).toBe('User updated!');
    expect((await admin.json<UserDto>(`/api/users/${id}`)).locale).toBe('fr');
    // The notice goes after a second, so that the next one is not this one.
    await expect.poll(() => page.getByRole('status').count()).toBe(0);

    // Admin ticks every permission, locks the others and clears lockPassword.
    await page.getByLabel('Prevent the user from changing the password').check();
    await page.getByLabel('Administrator').check();
    for (const label of ['Create files and folders', 'Delete files and folders', 'Download', 'Edit files', 'Rename or move files and folders', 'Share files']) {
      const box = page.getByLabel(label, { exact: true });
      expect([label, await box.isChecked(), await box.isDisabled()]).toEqual([label, true, true]);
    }
    expect(await page.getByLabel('Prevent the user from changing the password').isChecked()).toBe(false);
    await page.getByLabel('Administrator').uncheck();
    // A sensitive change asks for the password; closing the prompt saves nothing.
    await page.getByLabel('Password', { exact: true }).fill('another-long-password-2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('dialog', { name: 'Confirm with your password' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog', { name: 'Confirm with your password' }).count()).toBe(0);
    const oldStill = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'dora', password: 'a-very-long-password-1' }) });
    expect(oldStill.status).toBe(200);
    await page.getByRole('button', { name: 'Save' }).click();
    const updated = usersCall(page, 'PUT');
    await confirmPassword(page);
    expect((await updated).status()).toBe(200);
    await expect.poll(() => page.getByRole('status').last().textContent()).toBe('User updated!');
    const login = await fetch(`${fm.url}/api/login`, { method: 'POST', body: JSON.stringify({ username: 'dora', password: 'another-long-password-2' }) });
    expect(login.status).toBe(200);
    dora = await admin.json<UserDto>(`/api/users/${id}`);
    expect(dora.perm.admin).toBe(false);

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete user' });
    expect(await confirm.getByText('Are you sure you want to delete this user?').count()).toBe(1);
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirmPassword(page);
    await page.waitForURL(/\/settings\/users$/);
    await expect.poll(() => page.getByRole('status').last().textContent()).toBe('User deleted!');
    expect((await admin.json<UserDto[]>('/api/users')).map((u) => u.username)).toEqual(['admin']);
  });

  it('lists users with their admin flag and scope, and blanks the scope while a home folder is created', async () => {
    await createUser(admin, fm, 'eve', { scope: '/eve' });
    await admin.fetch('/api/settings', { method: 'PUT', json: { createUserDir: true } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/users');
    const rows = page.getByRole('table').locator('tbody tr');
    // Each user's row, whatever other users earlier tests left.
    const row = (name: string) => rows.filter({ has: page.getByRole('cell', { name, exact: true }) });
    await row('eve').waitFor();
    expect(await row('eve').innerText()).toMatch(/^eve\s+No\s+\/eve\s*$/);
    expect(await row('admin').innerText()).toMatch(/^admin\s+Yes\s+\/\s*$/);
    await page.getByRole('link', { name: 'Edit eve' }).click();
    await page.getByRole('heading', { name: 'eve', level: 2 }).waitFor();
    await page.goto(`${fm.url}/settings/users/new`);
    const home = page.getByLabel("Create the user's home folder");
    expect(await home.isChecked()).toBe(true);
    expect(await page.getByLabel('Scope').isDisabled()).toBe(true);
    await home.uncheck();
    expect(await page.getByLabel('Scope').isDisabled()).toBe(false);
    await admin.fetch('/api/settings', { method: 'PUT', json: { createUserDir: false } });
  });

  it('saves the global settings: the chunk size commits 1.5 s after typing, rules, branding', async () => {
    // Signup is only accepted with a home folder per user (or a narrower scope) for new users.
    await admin.fetch('/api/settings', { method: 'PUT', json: { createUserDir: true } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    const chunk = page.getByLabel('Chunk size');
    expect(await chunk.inputValue()).toBe('10MB');
    await chunk.fill('2.5m');
    // Still as typed right after, committed and reformatted once typing stopped for 1.5 s.
    expect(await chunk.inputValue()).toBe('2.5m');
    await expect.poll(() => chunk.inputValue(), { timeout: 5000 }).toBe('2.5MB');
    await page.getByLabel('Retries per chunk').fill('7');
    await page.getByLabel('Allow users to sign up').check();
    const general = page.getByRole('form', { name: 'Global settings' });
    await general.getByRole('button', { name: 'New rule' }).click();
    await general.getByLabel('Regular expression', { exact: true }).first().check();
    await general.getByRole('textbox', { name: 'Regular expression' }).fill('\\.env$');
    await page.getByLabel('Theme').selectOption('dark');
    await general.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Settings updated!');
    let s = await admin.json<SettingsDto>('/api/settings');
    expect(s.tus).toEqual({ chunkSize: 2.5 * 1024 * 1024, retryCount: 7 });
    expect(s.signup).toBe(true);
    expect(s.rules).toEqual([{ allow: false, path: '', regex: true, regexp: { raw: '\\.env$' } }]);

    // Update right after typing saves what was typed; a value that does not parse gives 1 MiB.
    await chunk.fill('512k');
    await general.getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<SettingsDto>('/api/settings')).tus.chunkSize).toBe(512 * 1024);
    expect(await chunk.inputValue()).toBe('512KB');
    await chunk.fill('lots');
    await expect.poll(() => chunk.inputValue(), { timeout: 5000 }).toBe('1MB');

    // New-user defaults have their own card.
    const defaults = page.getByRole('form', { name: 'New user defaults' });
    await defaults.getByLabel('Language').selectOption('de');
    await defaults.getByLabel('Share files').uncheck();
    await defaults.getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<SettingsDto>('/api/settings')).defaults.locale).toBe('de');
    s = await admin.json<SettingsDto>('/api/settings');
    expect(s.defaults.perm.share).toBe(false);
    // No command execution: neither the shell field nor the command runner.
    expect(await page.getByLabel('Shell').count()).toBe(0);
    expect(await page.getByRole('form', { name: 'Command runner' }).count()).toBe(0);
  });

  it('shows the shell and the command runner when execution is enabled', async () => {
    await admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: true } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    await page.getByLabel('Shell').fill('  sh   -c ');
    const runner = page.getByRole('form', { name: 'Command runner' });
    await runner.getByText('after_save').click();
    await runner.getByRole('textbox', { name: 'after_save' }).fill('touch saved\n\n  true  \n');
    await runner.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Commands updated!');
    await page.getByRole('form', { name: 'Global settings' }).getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<SettingsDto>('/api/settings')).shell).toEqual(['sh', '-c']);
    expect((await admin.json<SettingsDto>('/api/settings')).commands.after_save).toEqual(['touch saved', 'true']);
    await admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: false, shell: [] } });
  });

  it('keeps non-admins out of the admin pages', async () => {
    const frank = await createUser(admin, fm, 'frank');
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, frank.client.token, '/settings/global');
    await page.waitForURL(/\/403$/);
    await page.goto(`${fm.url}/settings/users/1`);
    await page.waitForURL(/\/403$/);
  });
});
