/** The shell panel in a real browser: commands stream in the current folder, colour codes go, history, clear and exit. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('shell panel', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-shell-');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs/alpha.txt'), 'a');
    fs.writeFileSync(path.join(root, 'docs/beta.txt'), 'b');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    await admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: true, shell: [] } });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('runs commands in the current folder, strips colour codes, keeps a history, and handles clear and exit itself', async () => {
    const runner = await createUser(admin, fm, 'runner', { perm: { execute: true, download: true, create: true }, commands: ['ls', 'printf', 'false'] });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, runner.client.token, '/files/docs/');
    await page.getByRole('option', { name: 'alpha.txt' }).waitFor();
    await page.locator('header').getByRole('button', { name: 'Toggle shell' }).click();
    const shell = page.getByRole('region', { name: 'Shell' });
    const input = shell.getByRole('textbox', { name: 'Command' });
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true);

    await input.fill('ls');
    await input.press('Enter');
    const entries = shell.locator('.shell-entry');
    await expect.poll(() => entries.last().locator('.shell-status').textContent()).toBe('Exit code: 0');
    // Run in /docs: its two files, one a line.
    expect(await entries.last().locator('.shell-command').innerText()).toMatch(/^\/docs\/? \$ ls$/);
    expect(await entries.last().locator('.shell-output').innerText()).toBe('alpha.txt\nbeta.txt');

    await input.fill("printf '\\033[31mred\\033[0m plain\\n'");
    await input.press('Enter');
    await expect.poll(() => entries.count()).toBe(2);
    await expect.poll(() => entries.last().locator('.shell-status').textContent()).toBe('Exit code: 0');
    expect(await entries.last().locator('.shell-output').innerText()).toBe('red plain');

    // A failing command shows its exit code as a failure; the input comes back after it.
    await input.fill('false');
    await input.press('Enter');
    await expect.poll(() => entries.last().locator('.shell-status').textContent()).toBe('Exit code: 1');
    expect(await entries.last().locator('.shell-status').getAttribute('class')).toContain('shell-status-bad');
    await expect.poll(() => input.isDisabled()).toBe(false);

    // Up and down walk the history.
    await input.press('ArrowUp');
    expect(await input.inputValue()).toBe('false');
    await input.press('ArrowUp');
    expect(await input.inputValue()).toMatch(/^printf /);
    await input.press('ArrowDown');
    expect(await input.inputValue()).toBe('false');

    // clear and exit never reach the server.
    await input.fill('clear');
    await input.press('Enter');
    await expect.poll(() => entries.count()).toBe(0);
    await input.fill('exit');
    await input.press('Enter');
    await expect.poll(() => shell.count()).toBe(0);
    expect(await page.locator('header').getByRole('button', { name: 'Toggle shell' }).getAttribute('aria-pressed')).toBe('false');
  });

  it('offers no shell without the execute permission', async () => {
    const plain = await createUser(admin, fm, 'plain', { perm: { execute: false, download: true } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, plain.client.token, '/files/docs/');
    await page.getByRole('option', { name: 'alpha.txt' }).waitFor();
    expect(await page.locator('header').getByRole('button', { name: 'Toggle shell' }).count()).toBe(0);
  });
});
