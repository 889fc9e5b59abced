/** Every control has an accessible name, the keyboard reaches them with a visible focus ring, and the main screens load without console errors. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

/** Interactive elements without an accessible name (aria-label, label, text, title or alt). */
function unnamedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const controls = document.querySelectorAll<HTMLElement>('button, a[href], input, select, textarea, [role=option], [role=menuitem], [tabindex="0"]');
    const out: string[] = [];
    for (const el of controls) {
      if (el.closest('[hidden]') || el.getAttribute('type') === 'hidden') continue;
      const labelled = el
        .getAttribute('aria-labelledby')
        ?.split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      const label = (el as HTMLInputElement).labels?.[0]?.textContent;
      const img = el.querySelector('img[alt]')?.getAttribute('alt');
      const name = [el.getAttribute('aria-label'), labelled, label, el.textContent, el.getAttribute('title'), img].find((s) => s?.trim());
      if (!name) out.push(el.outerHTML.slice(0, 120));
    }
    return out;
  });
}

describe('accessibility of the main screens', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-a11y-');
    fs.mkdirSync(path.join(root, 'folder'));
    fs.writeFileSync(path.join(root, 'file.txt'), 'text');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('names every control on the login page, the listing, the prompts and the settings', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await page.getByLabel('Username').waitFor();
    expect(await unnamedControls(page)).toEqual([]);

    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'file.txt' }).click();
    expect(await unnamedControls(page)).toEqual([]);
    for (const action of ['Info', 'Move file', 'Copy file', 'Rename', 'Delete']) {
      await page.locator('header').getByRole('button', { name: action }).click();
      await page.getByRole('dialog').waitFor();
      expect(await unnamedControls(page), action).toEqual([]);
      await page.keyboard.press('Escape');
      expect(await page.getByRole('dialog').count()).toBe(0);
    }
    await page.keyboard.press('F1');
    await page.getByRole('dialog', { name: 'Help' }).waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL(/\/settings\/profile$/);
    await page.getByLabel('Language').waitFor();
    expect(await unnamedControls(page)).toEqual([]);
    expect(await page.title()).toBe('Profile settings - fm');

    const narrow = await browser.newPage({ width: 375, height: 740 });
    await openLoggedIn(narrow, fm.url, admin.token, '/files/');
    await narrow.getByRole('option', { name: 'file.txt' }).click();
    await narrow.getByRole('button', { name: 'Toggle sidebar' }).click();
    expect(await unnamedControls(narrow)).toEqual([]);
  });

  it('reaches the header actions with Tab and draws a focus ring', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'file.txt' }).waitFor();
    const reached = new Set<string>();
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        const name = el.getAttribute('aria-label') ?? el.querySelector('.item-name-text')?.textContent ?? el.textContent?.trim() ?? '';
        return { name, ring: style.outlineStyle !== 'none' && style.outlineWidth !== '0px' };
      });
      if (!focused) continue;
      expect(focused.ring, `focus ring on ${focused.name}`).toBe(true);
      reached.add(focused.name);
    }
    for (const name of ['My files', 'New folder', 'Settings', 'Download', 'Switch view', 'Info', 'Select multiple', 'folder'])
      expect(reached, name).toContain(name);
  });
});
