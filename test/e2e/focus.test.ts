/**
 * Keyboard focus: a prompt and the search overlay keep Tab inside and give the focus back to what
 * opened them; the selected entries and the entry with the focus look different, in every view and
 * both themes; an image zooms from the keyboard; the shell's command line shows its focus with a
 * ring, its prompt is not underlined.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

/** A description of the focused element: its accessible label or text, and whether it is inside `dialogSelector`. */
function focused(page: Page, dialogSelector: string): Promise<{ name: string; inside: boolean }> {
  return page.evaluate((sel) => {
    const el = document.activeElement as HTMLElement | null;
    return { name: el?.getAttribute('aria-label') ?? el?.textContent?.trim() ?? '', inside: !!el?.closest(sel) };
  }, dialogSelector);
}

/** Tabs forward through more stops than the dialog has, then back; every stop is inside, and both ends wrap. */
async function expectTabTrapped(page: Page, dialogSelector: string): Promise<void> {
  const stops = await page.locator(dialogSelector).evaluate((d) => {
    const sel = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
    return [...d.querySelectorAll<HTMLElement>(sel)].filter((el) => el.getClientRects().length > 0).length;
  });
  expect(stops).toBeGreaterThan(1);
  const forward: string[] = [];
  for (let i = 0; i < stops + 2; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page, dialogSelector);
    expect(f.inside, `Tab ${i + 1} stays in the dialog`).toBe(true);
    forward.push(f.name);
  }
  // After one full round the same stops come again.
  expect(forward.slice(stops)).toEqual(forward.slice(0, 2));
  for (let i = 0; i < stops + 2; i++) {
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page, dialogSelector)).inside, `Shift+Tab ${i + 1} stays in the dialog`).toBe(true);
  }
}

/** The computed look of an entry: background, text colour, outline. */
function look(page: Page, name: string) {
  return page
    .getByRole('option')
    .filter({ has: page.locator('.item-name-text', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) })
    .evaluate((el) => {
      const s = getComputedStyle(el);
      const text = getComputedStyle(el.querySelector('.item-name') ?? el);
      return { background: s.backgroundColor, color: text.color, outline: s.outlineStyle === 'none' ? 'none' : `${s.outlineStyle} ${s.outlineColor}` };
    });
}

describe('keyboard focus', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-focus-');
    fs.mkdirSync(path.join(root, 'folder'));
    for (const name of ['a.txt', 'b.txt', 'c.txt']) fs.writeFileSync(path.join(root, name), name);
    await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3498db' } }).toFile(path.join(root, 'folder/photo.jpg'));
    fm = await startFm({ root });
    admin = await adminClient(fm);
    await admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: true, shell: [] } });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a prompt keeps Tab inside and gives the focus back to the button or the entry that opened it', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: /^b\.txt/ }).click();
    const rename = page.locator('header').getByRole('button', { name: 'Rename' });
    await rename.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Rename' }).waitFor();
    expect((await focused(page, '[role=dialog]')).inside).toBe(true);
    await expectTabTrapped(page, '[role=dialog]');
    await page.keyboard.press('Escape');
    await expect.poll(() => rename.evaluate((el) => el === document.activeElement)).toBe(true);

    // Opened from the listing with F2, closed with Cancel: back on the entry.
    const entry = page.getByRole('option', { name: /^b\.txt/ });
    await entry.focus();
    await page.keyboard.press('F2');
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => entry.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  it('the search overlay keeps Tab inside and gives the focus back to the search button', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: /^a\.txt/ }).waitFor();
    const opener = page.locator('header .search-open');
    await opener.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Search' }).waitFor();
    await expectTabTrapped(page, '[role=dialog]');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => opener.evaluate((el) => el === document.activeElement)).toBe(true);
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`a selected entry is filled, the focused one has a ring, in the three views (${colorScheme})`, async () => {
      const user = await createUser(admin, fm, `views${colorScheme}`, { perm: { admin: false } });
      const page = await browser.newPage({ colorScheme });
      await openLoggedIn(page, fm.url, user.client.token, '/files/');
      const looks: Record<string, Awaited<ReturnType<typeof look>>>[] = [];
      for (const view of ['list', 'mosaic', 'gallery']) {
        await page.locator(`.listing-${view}`).waitFor();
        // All by keyboard: Space selects the entry with the focus, Ctrl+arrow moves the focus without selecting.
        const first = page.getByRole('option', { name: /^a\.txt/ });
        await first.focus();
        await page.keyboard.press('Space');
        await expect.poll(() => first.getAttribute('aria-selected')).toBe('true');
        await page.keyboard.press(view === 'list' ? 'Control+ArrowDown' : 'Control+ArrowRight');
        await expect.poll(() => page.evaluate(() => document.activeElement?.querySelector('.item-name-text')?.textContent)).toBe('b.txt');
        const seen = { selected: await look(page, 'a.txt'), focused: await look(page, 'b.txt'), plain: await look(page, 'c.txt') };
        looks.push(seen);
        expect(seen.selected.background, `${view}: selected is filled`).not.toBe(seen.plain.background);
        expect(seen.selected.color, `${view}: selected text changes colour`).not.toBe(seen.plain.color);
        expect(seen.selected.outline, `${view}: selected has no ring`).toBe('none');
        expect(seen.focused.outline, `${view}: focused has a ring`).not.toBe('none');
        expect(seen.focused.background, `${view}: focused is not filled`).toBe(seen.plain.background);
        await page.keyboard.press('Escape');
        await page.locator('header').getByRole('button', { name: 'Switch view' }).click();
      }
      // The same two looks in every view.
      expect(new Set(looks.map((l) => l.selected.background)).size).toBe(1);
      expect(new Set(looks.map((l) => l.focused.outline)).size).toBe(1);
    });
  }

  it('an image is zoomed from the keyboard: Tab reaches the picture, + zooms in, - out, 0 resets', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/folder/photo.jpg');
    const viewer = page.getByRole('img', { name: 'photo.jpg' });
    await viewer.locator('img').waitFor();
    for (let i = 0; i < 20 && !(await viewer.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await viewer.evaluate((el) => el === document.activeElement)).toBe(true);
    const scale = async () => Number(await viewer.getAttribute('data-scale'));
    await page.keyboard.press('+');
    await expect.poll(scale).toBeGreaterThan(1);
    const zoomed = await scale();
    await page.keyboard.press('-');
    await expect.poll(scale).toBeLessThan(zoomed);
    await page.keyboard.press('+');
    await page.keyboard.press('0');
    await expect.poll(scale).toBe(1);
  });

  it("the shell's command line shows its focus with a ring, and its prompt is not underlined", async () => {
    const runner = await createUser(admin, fm, 'runner', { perm: { execute: true }, commands: ['ls'] });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, runner.client.token, '/files/');
    await page.locator('header').getByRole('button', { name: 'Toggle shell' }).click();
    const input = page.getByRole('textbox', { name: 'Command' });
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true);
    const line = await page.locator('.shell-line').evaluate((el) => getComputedStyle(el).outlineStyle);
    const prompt = await page.locator('.shell-line .shell-prompt').evaluate((el) => getComputedStyle(el).textDecorationLine);
    expect([line, prompt]).toEqual(['solid', 'none']);
  });
});
