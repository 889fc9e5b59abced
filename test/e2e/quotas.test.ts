/**
 * Quotas in the UI: the admin sets them in the user form (a size as typed, a bad one flagged),
 * and the sidebar's bar shows the usage against the quota instead of the disk (390 px, dark),
 * with the entry count; an upload past the quota is refused with a notice naming the quota. axe on each screen.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserDto } from '../../src/api/user.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';

const PHONE = { width: 390, height: 844 };
/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

async function noAxeViolations(page: Page, screen: string): Promise<void> {
  expect((await axeViolations(page)).join('\n'), screen).toBe('');
}

describe('quotas', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-quota-');
    fs.mkdirSync(path.join(root, 'ann'));
    fs.writeFileSync(path.join(root, 'ann/report.bin'), Buffer.alloc(768 * 1024));
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the admin sets a quota in the user form; a size that cannot be read is flagged', async () => {
    const { id } = await createUser(admin, fm, 'bea', { scope: '/' });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, `/settings/users/${id}`);
    await page.getByRole('heading', { name: 'bea', level: 2 }).waitFor();
    const quota = page.getByLabel('Storage quota');
    await quota.fill('ten');
    expect(await quota.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Not a size: use e.g. 500MB or 10GB.').waitFor();
    await shot(page, 'quota-user-form-invalid');
    await quota.fill('1.5GB');
    expect(await quota.getAttribute('aria-invalid')).toBe('false');
    await page.getByLabel('Files quota').fill('5000');
    await shot(page, 'quota-user-form');
    await noAxeViolations(page, 'user form with quotas');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByRole('status').last().textContent()).toBe('User updated!');
    const bea = await admin.json<UserDto>(`/api/users/${id}`);
    expect([bea.quota, bea.quotaFiles]).toEqual([1.5 * 1024 ** 3, 5000]);
    // Reopened, the form shows the quota as a size.
    await page.reload();
    await expect.poll(() => page.getByLabel('Storage quota').inputValue()).toBe('1.5GB');
  });

  it('the new-user defaults carry a quota (390 px, dark)', async () => {
    const page = await browser.newPage({ ...PHONE, colorScheme: 'dark' });
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    const card = page.getByRole('form', { name: 'New user defaults' });
    await card.getByLabel('Storage quota').fill('2GB');
    await card.getByLabel('Files quota').fill('1000');
    await card.getByLabel('Files quota').scrollIntoViewIfNeeded();
    await shot(page, 'quota-defaults-dark');
    await noAxeViolations(page, 'new-user defaults with quotas');
    await card.getByRole('button', { name: 'Update' }).click();
    await expect
      .poll(async () => (await admin.json<{ defaults: { quota: number; quotaFiles: number } }>('/api/settings')).defaults)
      .toMatchObject({ quota: 2 * 1024 ** 3, quotaFiles: 1000 });
    await admin.fetch('/api/settings', {
      method: 'PUT',
      json: { defaults: { ...(await admin.json<{ defaults: object }>('/api/settings')).defaults, quota: 0, quotaFiles: 0 } },
    });
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`the sidebar shows the usage against the quota, with the files (390 px, ${colorScheme})`, async () => {
      const name = `ann-${colorScheme}`;
      const { client } = await createUser(admin, fm, name, { scope: '/ann', quota: 1024 * 1024, quotaFiles: 10, perm: { create: true } });
      const page = await browser.newPage({ ...PHONE, colorScheme });
      await openLoggedIn(page, fm.url, client.token, '/files/');
      await page.getByRole('option', { name: 'report.bin' }).waitFor();
      await page.getByRole('button', { name: 'Toggle sidebar' }).click();
      const bar = page.getByRole('complementary').getByRole('progressbar');
      await bar.waitFor();
      expect(await bar.getAttribute('aria-label')).toBe('768 KiB of 1 MiB quota used');
      expect(await bar.getAttribute('aria-valuenow')).toBe('75');
      await page.getByText('1 of 10 files').waitFor();
      // The sidebar slides in: look at it (and measure it) once it is in place.
      await expect.poll(async () => (await page.getByRole('complementary').boundingBox())?.x).toBe(0);
      await shot(page, `quota-sidebar-${colorScheme}`);
      await noAxeViolations(page, `sidebar with a quota (${colorScheme})`);
      const box = await page.locator('.disk-usage').boundingBox();
      expect(box && box.x + box.width).toBeLessThanOrEqual(PHONE.width);
    });
  }

  it('an upload past the quota says the quota is full and leaves nothing', async () => {
    const { client } = await createUser(admin, fm, 'cid', { scope: '/ann', quota: 800 * 1024, perm: { create: true } });
    const page = await browser.newPage();
    browser.allowConsoleError(/507/);
    await openLoggedIn(page, fm.url, client.token, '/files/');
    await page.getByRole('option', { name: 'report.bin' }).waitFor();
    const file = path.join(tempDir('fm-e2e-quota-up-'), 'big.bin');
    fs.writeFileSync(file, Buffer.alloc(64 * 1024));
    await page.locator('header').getByRole('button', { name: 'Upload' }).click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('dialog', { name: 'Upload' }).getByRole('button', { name: 'File', exact: true }).click();
    await (await chooser).setFiles(file);
    await page.getByRole('region', { name: 'Uploads' }).getByText('Failed: 1').waitFor();
    // The upload panel's notice is in the user's language, with the server's sentence (which names the quota) after it.
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('This would go over your storage quota');
    expect(await page.getByRole('alert').first().textContent()).toContain('over quota: 800KB for cid, 768KB used; this needs 64KB more');
    await shot(page, 'quota-upload-refused');
    expect(fs.readdirSync(path.join(root, 'ann'))).toEqual(['report.bin']);
  });
});
