/**
 * Settings → Activity (admins) and the profile's "Your activity": the audit log filtered by
 * keyboard, paged, exported as CSV and JSON; each user sees only their own entries; axe clean in
 * light and dark, at 1280 and 390 px. Set FM_SHOTS=dir to keep screenshots for a look.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src/api/audit.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { adminClient, createUser, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { PERMS } from '../integration/share-helpers.ts';

const shots = process.env.FM_SHOTS;

describe('the activity pages', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let erin: { client: Client; id: number };

  beforeAll(async () => {
    fm = await startFm({ args: ['--no-index'] });
    fs.mkdirSync(path.join(fm.root, 'erin'), { recursive: true });
    for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(fm.root, 'erin', `gone-${i}.txt`), 'x');
    fs.writeFileSync(path.join(fm.root, 'erin', 'report, "final".txt'), 'report');
    admin = await adminClient(fm);
    erin = await createUser(admin, fm, 'erin', { scope: '/erin', perm: PERMS });
    for (let i = 0; i < 3; i++) await erin.client.fetch(`/api/resources/gone-${i}.txt`, { method: 'DELETE' });
    // Enough entries for two pages of 50.
    for (let i = 0; i < 55; i++) await erin.client.fetch(`/api/raw/${encodeURIComponent('report, "final".txt')}`);
  });
  afterAll(async () => {
    await fm?.stop();
  });

  it('filters by keyboard, pages, and exports what the filter shows', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/activity');
    await page.getByRole('heading', { name: 'Activity', level: 2 }).waitFor();
    const table = page.getByRole('table', { name: 'Activity' });
    await table.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    if (shots) await page.screenshot({ path: path.join(shots, 'activity-1280-light.png'), fullPage: true });

    // Paging: 50 a page, the newest first.
    const pager = page.getByRole('navigation', { name: 'Activity pages' });
    await expect.poll(() => pager.innerText()).toMatch(/1–50 of \d+/);
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => pager.innerText()).toMatch(/51–\d+ of \d+/);

    // The filter, by keyboard only: the user field, then the action, then Enter.
    await page.getByLabel('User', { exact: true }).focus();
    await page.keyboard.type('erin');
    await page.keyboard.press('Tab');
    await page.keyboard.type('delete');
    expect(await page.locator('select[name=action]').inputValue()).toBe('delete');
    // Enter in a text field submits the form (a select does not).
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    expect(new Set(await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action'))))).toEqual(new Set(['delete']));
    await expect.poll(() => pager.innerText()).toMatch(/1–3 of 3/);

    const csvDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csvFile = await csvDownload;
    expect(csvFile.suggestedFilename()).toBe('fm-audit.csv');
    const csv = fs.readFileSync((await csvFile.path())!, 'utf8').split('\r\n');
    expect(csv[0]).toBe('time,actor,share,address,action,path,dest,bytes,status,detail,duration');
    expect(csv.filter(Boolean)).toHaveLength(4);
    expect(csv.slice(1, 4).every((l) => l.includes(',erin,,127.0.0.1,delete,/gone-'))).toBe(true);

    const jsonDownload = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export JSON' }).click();
    const json = JSON.parse(fs.readFileSync((await (await jsonDownload).path())!, 'utf8')) as AuditEntry[];
    expect(json.map((e) => e.path).sort()).toEqual(['/gone-0.txt', '/gone-1.txt', '/gone-2.txt']);
  });

  it('sets how long entries are kept', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/activity');
    const days = page.getByLabel('Keep entries for (days)');
    await expect.poll(() => days.inputValue()).toBe('90');
    await days.fill('30');
    await page.getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<{ auditRetention: number }>('/api/settings')).auditRetention).toBe(30 * 86400);
    await page.reload();
    await expect.poll(() => page.getByLabel('Keep entries for (days)').inputValue()).toBe('30');
  });

  it('works at 390 px in dark, axe clean', async () => {
    const page = await browser.newPage({ width: 390, height: 844, colorScheme: 'dark' });
    await openLoggedIn(page, fm.url, admin.token, '/settings/activity');
    await page.getByRole('table', { name: 'Activity' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    if (shots) await page.screenshot({ path: path.join(shots, 'activity-390-dark.png'), fullPage: true });
  });

  it("shows a user their own activity on the profile page, and keeps them off the admins' page", async () => {
    const page = await browser.newPage({ width: 390, height: 844, colorScheme: 'dark' });
    await openLoggedIn(page, fm.url, erin.client.token, '/settings/profile');
    const card = page.getByRole('region', { name: 'Your activity' });
    const table = card.getByRole('table', { name: 'Your activity' });
    await table.waitFor();
    expect(await table.getByRole('columnheader', { name: 'User' }).count()).toBe(0);
    await expect.poll(() => card.getByRole('navigation').innerText()).toMatch(/1–20 of (59|6\d)/);
    expect(await table.getByText('report, "final".txt').count()).toBeGreaterThan(0);
    expect(await axeViolations(page)).toEqual([]);
    if (shots) {
      await card.scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(shots, 'activity-profile-390-dark.png') });
    }
    expect(await page.getByRole('link', { name: 'Activity' }).count()).toBe(0);
    await page.goto(`${fm.url}/settings/activity`);
    await page.waitForURL(/\/403$/);
  });
});
