/**
 * The search overlay's results: the type's icon, size and date, a count, one stable order, results
 * while typing, and the keys that clear them (spec §4 "Search").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;
/** compareNames order of every name under the root containing "b" (the server streams them unsorted). */
const ORDER = ['_b.txt', 'b-c.txt', 'b.mp3', 'b.pdf', 'B1.txt', 'b2.txt', 'b10.txt', 'bank', 'sub', 'sub/b3.txt'];
/** Names also in the root's listing, to compare the result's icon, size and date with. */
const IN_LISTING = ['b-c.txt', 'b.mp3', 'b.pdf', 'B1.txt', 'bank'];

describe('search results', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-search-results-');
    fs.mkdirSync(path.join(root, 'bank'));
    fs.mkdirSync(path.join(root, 'sub'));
    for (const name of ['b10.txt', 'b2.txt', 'B1.txt', '_b.txt', 'b-c.txt', 'sub/b3.txt', 'other.txt']) fs.writeFileSync(path.join(root, name), name);
    fs.writeFileSync(path.join(root, 'b.pdf'), 'x'.repeat(2500));
    fs.writeFileSync(path.join(root, 'b.mp3'), 'x'.repeat(3 * 1024 * 1024));
    const old = new Date('2021-03-04T05:06:07Z');
    fs.utimesSync(path.join(root, 'B1.txt'), old, old);
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function openSearch(page: Page, searches: string[]) {
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/search')) searches.push(new URL(req.url()).searchParams.get('query') ?? '');
    });
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'bank' }).waitFor();
    await page.keyboard.press('Control+f');
    const input = page.getByRole('searchbox', { name: 'Search…' });
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true);
    return input;
  }

  for (const [width, colorScheme] of [
    [1280, 'light'],
    [390, 'dark'],
  ] as const) {
    it(`searches while typing, once typing pauses, and shows the results counted and in name order (${width} px)`, async () => {
      const page = await browser.newPage({ width, height: 800, colorScheme });
      const searches: string[] = [];
      const input = await openSearch(page, searches);
      await input.pressSequentially('b');
      const results = page.getByRole('list', { name: /^Search results/ });
      await expect.poll(() => results.locator('.search-path').allInnerTexts()).toEqual(ORDER);
      expect(await page.locator('.search-count').textContent()).toBe(`Search results: ${ORDER.length}`);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `search-results-${width}.png`) });
      // Each result has the icon, size and date its listing row has (the listing is behind the overlay).
      const icons = new Set<string>();
      for (const name of IN_LISTING) {
        const row = page.getByRole('option').filter({ has: page.locator('.item-name-text', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });
        const result = results.getByRole('listitem').filter({ has: page.locator('.search-path', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) });
        const icon = await result.locator('svg.icon path').getAttribute('d');
        expect(icon, name).toBe(await row.locator('svg.icon path').first().getAttribute('d'));
        icons.add(icon ?? '');
        expect(await result.locator('.search-size').textContent(), name).toBe(await row.locator('.item-size').textContent());
        expect(await result.locator('.search-date').textContent(), name).toBe(await row.locator('.item-modified').textContent());
        const box = await result.boundingBox();
        expect(box && box.x + box.width <= width, `${name} fits`).toBe(true);
      }
      expect(icons.size, 'text, audio, pdf and folder icons differ').toBe(4);
      const b1 = results.getByRole('listitem').filter({ hasText: 'B1.txt' });
      expect(await b1.locator('.search-size').textContent()).toBe('6 B');
      expect(await b1.locator('time').getAttribute('datetime')).toBe('2021-03-04T05:06:07.000Z');
      // Several keys typed quickly make one search, of the whole text.
      searches.length = 0;
      await input.press('Backspace');
      await input.pressSequentially('b1');
      await expect.poll(() => results.locator('.search-path').allInnerTexts()).toEqual(['B1.txt', 'b10.txt']);
      expect(searches).toEqual(['b1']);
    });
  }

  it('clears the results on any key but Enter, which searches again', async () => {
    const page = await browser.newPage();
    const searches: string[] = [];
    const input = await openSearch(page, searches);
    await input.fill('b1');
    await input.press('Enter');
    const results = page.getByRole('list', { name: /^Search results/ });
    await expect.poll(() => results.locator('.search-path').allInnerTexts()).toEqual(['B1.txt', 'b10.txt']);
    for (const key of ['ArrowLeft', 'Shift', 'Home', 'Control']) {
      await input.press(key);
      expect(await results.count(), key).toBe(0);
      expect(await page.locator('.search-count').count(), key).toBe(0);
      await input.press('Enter');
      await expect.poll(() => results.locator('.search-path').allInnerTexts(), { message: key }).toEqual(['B1.txt', 'b10.txt']);
    }
    // Enter with nothing but spaces is ignored.
    searches.length = 0;
    await input.fill('   ');
    await input.press('Enter');
    expect(await results.count()).toBe(0);
    expect(searches).toEqual([]);
  });
});
