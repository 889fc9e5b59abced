/**
 * The Trash page: reached from the sidebar; lists what was deleted (name, original place, when,
 * size); restores, asking on a clash (replace, keep both, cancel); deletes for good and empties
 * after confirmation; by keyboard, at 390 px, in the dark theme, without axe violations.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { PERMS } from '../integration/share-helpers.ts';
import { PROJECT_ROOT, adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';

describe('the Trash page', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let erin: Client;
  let root: string;
  const home = (p: string) => path.join(root, 'erin', p);
  const del = (p: string) => erin.fetch(`/api/resources${p}`, { method: 'DELETE' });

  beforeAll(async () => {
    root = tempDir('fm-e2e-trash-');
    fs.mkdirSync(path.join(root, 'erin'));
    fm = await startFm({ root, args: ['--log', 'off'] });
    admin = await adminClient(fm);
    erin = (await createUser(admin, fm, 'erin', { scope: '/erin', perm: PERMS })).client;
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await erin.fetch('/api/trash', { method: 'DELETE' });
  });

  const rows = (page: Page) => page.locator('tbody tr');

  it('is in the sidebar and lists items; restore asks on a clash: cancel, keep both, replace', async () => {
    // The clash is found by trying: the browser logs each 409.
    browser.allowConsoleError(/409 \(Conflict\).*\/api\/trash\//);
    fs.mkdirSync(home('docs'), { recursive: true });
    fs.writeFileSync(home('docs/plan.txt'), 'old plan');
    expect((await del('/docs/plan.txt')).status).toBe(204);
    fs.writeFileSync(home('docs/plan.txt'), 'new plan');

    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, erin.token);
    await page.getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('heading', { name: 'Trash', level: 1 }).waitFor();
    // Name, original location, when, size (the details read with their labels).
    await expect.poll(() => rows(page).first().innerText()).toMatch(/plan\.txt\s+Original location:\s+\/docs\/plan\.txt\s+now\s+Size:\s+8 B/);

    // Cancel leaves everything as it was.
    await page.getByRole('button', { name: 'Restore: plan.txt' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('/docs/plan.txt already exists').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: path.join(PROJECT_ROOT, 'test-results', 'trash-clash.png') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await rows(page).count()).toBe(1);

    // Keep both: restored as "plan (1).txt".
    await page.getByRole('button', { name: 'Restore: plan.txt' }).click();
    await dialog.getByRole('button', { name: 'Keep both' }).click();
    await page.getByText('The trash is empty').waitFor();
    expect(fs.readFileSync(home('docs/plan (1).txt'), 'utf8')).toBe('old plan');

    // Replace: the restored one takes the place; the replaced one goes to the trash.
    expect((await del('/docs/plan (1).txt')).status).toBe(204);
    await page.reload();
    await page.getByRole('button', { name: 'Restore: plan (1).txt' }).waitFor();
    fs.writeFileSync(home('docs/plan (1).txt'), 'in the way');
    await page.getByRole('button', { name: 'Restore: plan (1).txt' }).click();
    await dialog.getByRole('button', { name: 'Replace' }).click();
    await expect.poll(() => fs.readFileSync(home('docs/plan (1).txt'), 'utf8')).toBe('old plan');
    await expect.poll(() => rows(page).first().getByRole('cell').first().innerText()).toContain('plan (1).txt');
  });

  it('what the file browser deletes shows up in the trash, and a restore brings it back to the listing', async () => {
    fs.writeFileSync(home('notes.md'), 'notes');
    const page = await browser.newPage({ width: 390, height: 844 });
    await openLoggedIn(page, fm.url, erin.token, '/files/');
    await page.getByRole('option', { name: 'notes.md' }).click();
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: 'Delete files' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByRole('option', { name: 'notes.md' }).count()).toBe(0);
    expect(fs.existsSync(home('notes.md'))).toBe(false);

    await page.getByRole('button', { name: 'Toggle sidebar' }).click();
    await page.getByRole('link', { name: 'Trash' }).click();
    await page.getByRole('button', { name: 'Restore: notes.md' }).click();
    await page.getByText('The trash is empty').waitFor();
    expect(fs.readFileSync(home('notes.md'), 'utf8')).toBe('notes');
    await page.goto(`${fm.url}/files/`);
    await page.getByRole('option', { name: 'notes.md' }).waitFor();
  });

  it('deletes one item for good and empties the trash, by keyboard, after confirmation', async () => {
    for (const n of ['a.txt', 'b.txt']) {
      fs.writeFileSync(home(n), n);
      expect((await del(`/${n}`)).status).toBe(204);
    }
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, erin.token, '/trash');
    const forGood = page.getByRole('button', { name: 'Delete for good: a.txt' });
    await forGood.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Delete for good?' });
    await dialog.waitFor();
    // The confirming button has the focus: Enter deletes.
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page).count()).toBe(1);

    await page.getByRole('button', { name: 'Empty trash' }).click();
    await page.getByRole('dialog', { name: 'Empty the trash?' }).getByRole('button', { name: 'Delete for good' }).click();
    await page.getByText('The trash is empty').waitFor();
    expect((await erin.json<unknown[]>('/api/trash')).length).toBe(0);
  });

  for (const [scheme, width] of [
    ['light', 1280],
    ['dark', 390],
  ] as const) {
    it(`has no axe violations and fits the screen (${scheme}, ${width} px)`, async () => {
      fs.writeFileSync(home('report-2024.pdf'), Buffer.alloc(2048));
      expect((await del('/report-2024.pdf')).status).toBe(204);
      const page = await browser.newPage({ width, height: 844, colorScheme: scheme });
      await openLoggedIn(page, fm.url, erin.token, '/trash');
      await page.getByRole('button', { name: 'Restore: report-2024.pdf' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(PROJECT_ROOT, 'test-results', `trash-${scheme}-${width}.png`) });
    });
  }

  it('the global settings page sets the retention in days', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/settings/global');
    const card = page.getByRole('form', { name: 'Trash' });
    await card.getByLabel('Keep deleted items for (days)').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await card.getByLabel('Keep deleted items for (days)').fill('7');
    await card.getByRole('button', { name: 'Update' }).click();
    await expect.poll(async () => (await admin.json<{ trashRetention: number }>('/api/settings')).trashRetention).toBe(7 * 86400);
    await admin.fetch('/api/settings', { method: 'PUT', json: { trashRetention: 30 * 86400 } });
  });
});
