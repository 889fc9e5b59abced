/** Browsing in a real browser: listing, selection, views, sorting, narrow screens, permissions, languages, themes. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const names = (page: Page) => itemNames(page);
const selectedNames = (page: Page) => itemNames(page, '[role=option][aria-selected=true]');

describe('browsing files', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-root-');
    fs.mkdirSync(path.join(root, 'docs/deep/er/still/deeper'), { recursive: true });
    fs.mkdirSync(path.join(root, 'Music'));
    fs.writeFileSync(path.join(root, 'a.txt'), 'aaaa');
    fs.writeFileSync(path.join(root, 'b.txt'), 'b'.repeat(3000));
    fs.writeFileSync(path.join(root, 'c.txt'), 'c'.repeat(20));
    fs.writeFileSync(path.join(root, 'd.txt'), 'd');
    fs.writeFileSync(path.join(root, 'docs/inside.md'), '# hi');
    fs.symlinkSync('/nonexistent/target', path.join(root, 'dangling'));
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function open(page: Page, client: Client = admin, at = '/files/') {
    await openLoggedIn(page, fm.url, client.token, at);
    await page.locator('[role=option]').first().waitFor();
  }

  it('lists folders then files, flags invalid links, and opens folders by double click and breadcrumbs', async () => {
    const page = await browser.newPage();
    await open(page);
    expect(await names(page)).toEqual(['docs', 'Music', 'a.txt', 'b.txt', 'c.txt', 'd.txt', 'dangling']);
    expect(await page.locator('.listing-heading').allTextContents()).toEqual(['Folders', 'Files']);
    await expect.poll(() => page.getByRole('option', { name: 'dangling' }).textContent()).toContain('Invalid link');
    expect(await page.title()).toBe('My files - fm');

    await page.getByRole('option', { name: 'docs' }).dblclick();
    await page.waitForURL(`${fm.url}/files/docs/`);
    await expect.poll(() => names(page)).toEqual(['deep', 'inside.md']);
    await page.getByRole('option', { name: 'deep' }).dblclick();
    await page.getByRole('option', { name: 'er' }).dblclick();
    await page.getByRole('option', { name: 'still' }).dblclick();
    await page.getByRole('option', { name: 'deeper' }).dblclick();
    await page.waitForURL(/deeper\/$/);
    await expect.poll(() => page.getByText('It feels lonely here…').count()).toBe(1);
    const crumbs = page.getByRole('navigation', { name: 'Location' }).getByRole('link');
    expect(await crumbs.allTextContents()).toEqual(['', '…', 'er', 'still', 'deeper']);
    await page.getByRole('link', { name: 'Home' }).click();
    await page.waitForURL(`${fm.url}/files/`);
  });

  it('selects with click, Ctrl+click, Shift+click and clears with Escape; a single click does not open', async () => {
    const page = await browser.newPage();
    await open(page);
    await page.getByRole('option', { name: 'a.txt' }).click();
    expect(await selectedNames(page)).toEqual(['a.txt']);
    await page.getByRole('option', { name: 'c.txt' }).click({ modifiers: ['Control'] });
    expect(await selectedNames(page)).toEqual(['a.txt', 'c.txt']);
    await page.getByRole('option', { name: 'a.txt' }).click({ modifiers: ['Control'] });
    expect(await selectedNames(page)).toEqual(['c.txt']);
    await page.getByRole('option', { name: 'Music' }).click({ modifiers: ['Shift'] });
    expect(await selectedNames(page)).toEqual(['Music', 'a.txt', 'b.txt', 'c.txt']);
    await page.getByRole('option', { name: 'd.txt' }).click();
    expect(await selectedNames(page)).toEqual(['d.txt']);
    expect(page.url()).toBe(`${fm.url}/files/`);
    await page.keyboard.press('Escape');
    expect(await selectedNames(page)).toEqual([]);
    await page.keyboard.press('Control+a');
    expect((await selectedNames(page)).length).toBe(7);
    await page.keyboard.press('Escape');

    // Multiple-selection mode: plain clicks toggle.
    await page.getByRole('button', { name: 'Select multiple' }).click();
    await page.getByRole('option', { name: 'a.txt' }).click();
    await page.getByRole('option', { name: 'b.txt' }).click();
    expect(await selectedNames(page)).toEqual(['a.txt', 'b.txt']);
    // Keyboard: arrows move, Enter opens.
    await page.keyboard.press('Escape');
    await page.getByRole('option', { name: 'docs' }).focus();
    await page.keyboard.press('ArrowDown');
    expect(await selectedNames(page)).toEqual(['Music']);
    await page.keyboard.press('ArrowUp');
    // Enter opens the focused entry: wait until the focus has moved (it follows on the next frame).
    await expect.poll(() => page.evaluate(() => document.activeElement?.querySelector('.item-name-text')?.textContent)).toBe('docs');
    expect(await selectedNames(page)).toEqual(['docs']);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${fm.url}/files/docs/`);
    // The focus follows into the opened folder, so the keyboard keeps working.
    await expect.poll(() => page.evaluate(() => document.activeElement?.querySelector('.item-name-text')?.textContent)).toBe('deep');
    await page.keyboard.press('ArrowDown');
    expect(await selectedNames(page)).toEqual(['inside.md']);
  });

  it('opens a folder by double click in multiple-selection mode', async () => {
    const page = await browser.newPage();
    await open(page);
    await page.getByRole('button', { name: 'Select multiple' }).click();
    await page.getByRole('option', { name: 'a.txt' }).click();
    expect(await selectedNames(page)).toEqual(['a.txt']);
    await page.getByRole('option', { name: 'docs' }).dblclick();
    await page.waitForURL(`${fm.url}/files/docs/`);
  });

  it('cycles list, mosaic and mosaic gallery views and saves the choice', async () => {
    const page = await browser.newPage();
    await open(page);
    const listing = page.locator('.listing');
    expect(await listing.getAttribute('class')).toContain('listing-list');
    for (const [mode, cls] of [
      ['mosaic', 'listing-mosaic'],
      ['mosaic gallery', 'listing-gallery'],
      ['list', 'listing-list'],
    ] as const) {
      await page.getByRole('button', { name: 'Switch view' }).click();
      await expect.poll(() => listing.getAttribute('class')).toContain(cls);
      expect(await names(page)).toContain('a.txt');
      await expect.poll(async () => (await admin.json<{ viewMode: string }>('/api/users/1')).viewMode).toBe(mode);
    }
  });

  it('sorts by a column, keeps the order after a reload, and toggles the direction', async () => {
    const page = await browser.newPage();
    await open(page);
    await page.getByRole('button', { name: 'Sort by size' }).click();
    await expect.poll(() => names(page)).toEqual(['docs', 'Music', 'd.txt', 'a.txt', 'dangling', 'c.txt', 'b.txt']);
    await page.reload();
    await page.locator('[role=option]').first().waitFor();
    await expect.poll(() => names(page)).toEqual(['docs', 'Music', 'd.txt', 'a.txt', 'dangling', 'c.txt', 'b.txt']);
    await page.getByRole('button', { name: 'Sort by size' }).click();
    await expect.poll(() => names(page)).toEqual(['docs', 'Music', 'b.txt', 'c.txt', 'dangling', 'a.txt', 'd.txt']);
    expect((await admin.json<{ sorting: unknown }>('/api/users/1')).sorting).toEqual({ by: 'size', asc: false });
    await page.getByRole('button', { name: 'Sort by name' }).click();
    await expect.poll(() => names(page)).toEqual(['docs', 'Music', 'a.txt', 'b.txt', 'c.txt', 'd.txt', 'dangling']);
  });

  it('moves the selection actions to a bar with the count on a narrow screen', async () => {
    const page = await browser.newPage({ width: 375, height: 740 });
    await open(page);
    expect(await page.getByRole('toolbar').count()).toBe(0);
    await page.getByRole('option', { name: 'a.txt' }).click();
    await page.getByRole('option', { name: 'b.txt' }).click({ modifiers: ['Control'] });
    const bar = page.getByRole('toolbar', { name: 'Actions on the selection' });
    await expect.poll(() => bar.textContent()).toContain('Selected: 2');
    for (const action of ['Copy file', 'Move file', 'Delete', 'Download', 'Info']) {
      expect(await bar.getByRole('button', { name: action }).count(), action).toBe(1);
    }
    // The header keeps only the rest (upload is not a selection action), behind the more-actions menu.
    await page.getByRole('button', { name: 'More' }).click();
    expect(await page.getByRole('menu').getByRole('menuitem').allTextContents()).toEqual(['Upload', 'Switch view', 'Select multiple']);
    await page.keyboard.press('Escape');
    expect(await page.getByRole('menu').count()).toBe(0);
    expect(await selectedNames(page)).toEqual(['a.txt', 'b.txt']);
    await page.getByRole('button', { name: 'Clear selection' }).click();
    expect(await page.getByRole('toolbar').count()).toBe(0);
  });

  it('hides actions the user lacks the permission for', async () => {
    const limited = await createUser(admin, fm, 'reader', {
      perm: { admin: false, create: false, rename: false, delete: false, modify: false, download: true, share: false, execute: false },
    });
    const page = await browser.newPage();
    await open(page, limited.client);
    await page.getByRole('option', { name: 'a.txt' }).click();
    const header = page.locator('header');
    await expect.poll(() => header.getByRole('button', { name: 'Download' }).count()).toBe(1);
    for (const hidden of ['Delete', 'Rename', 'Move file', 'Copy file']) expect(await header.getByRole('button', { name: hidden }).count(), hidden).toBe(0);
    expect(await page.getByRole('button', { name: 'New folder' }).count()).toBe(0);
    expect(await page.getByRole('option', { name: 'a.txt' }).getAttribute('draggable')).toBe('false');
    await page.keyboard.press('Delete');
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('renders Arabic right-to-left for a user whose browser speaks Arabic', async () => {
    const arab = await createUser(admin, fm, 'arabic', { locale: '' });
    const page = await browser.newPage({ locale: 'ar-EG' });
    await open(page, arab.client);
    expect(await page.evaluate(() => [document.documentElement.dir, document.documentElement.lang])).toEqual(['rtl', 'ar']);
    await expect.poll(() => page.locator('.listing-heading').first().textContent()).toBe('المجلدات');
    const sidebar = await page.locator('aside').boundingBox();
    expect(sidebar!.x).toBeGreaterThan(640);
    expect(await page.title()).toBe('ملفاتي - fm');
  });

  it('follows a dark system theme', async () => {
    const page = await browser.newPage({ colorScheme: 'dark' });
    await open(page);
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    expect(r + g + b).toBeLessThan(150);
  });
});
