/** 390 px phones: the selection bar and the settings tabs fit the screen (issue "The UI, finished"). */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

const PHONE = { width: 390, height: 844 };
/** Set FM_SHOTS=dir to keep screenshots for a look. */
const SHOTS = process.env.FM_SHOTS;

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** The left and right edges of the element's box. */
async function horizontalEdges(page: Page, selector: string): Promise<{ left: number; right: number }> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} has no box`);
  return { left: box.x, right: box.x + box.width };
}

describe('390 px screens', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-small-');
    for (const name of ['a.txt', 'b.txt']) fs.writeFileSync(path.join(root, name), name);
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`fits the selection bar with every button inside the viewport (${colorScheme})`, async () => {
      const page = await browser.newPage({ ...PHONE, colorScheme });
      await openLoggedIn(page, fm.url, admin.token, '/files/');
      // One file selected shows the most actions: share, rename, copy, move, delete, download, info.
      await page.getByRole('option', { name: 'a.txt' }).click();
      const bar = page.getByRole('toolbar', { name: 'Actions on the selection' });
      await expect.poll(() => bar.textContent()).toContain('Selected: 1');
      for (const action of ['Share', 'Rename', 'Info']) expect(await bar.getByRole('button', { name: action }).count(), action).toBe(1);
      await shot(page, `selection-bar-${colorScheme}`);
      const { left, right } = await horizontalEdges(page, '.selection-bar');
      expect(left).toBeGreaterThanOrEqual(0);
      expect(right).toBeLessThanOrEqual(PHONE.width);
      const buttons = bar.getByRole('button');
      expect(await buttons.count()).toBe(8);
      for (const button of await buttons.all()) {
        const box = await button.boundingBox();
        const name = await button.getAttribute('aria-label');
        expect(box, `${name} has a box`).not.toBeNull();
        if (!box) continue;
        expect(box.x, `${name} starts inside`).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, `${name} ends inside`).toBeLessThanOrEqual(PHONE.width);
        expect(box.width, `${name} is not squashed`).toBeGreaterThanOrEqual(32);
      }
    });

    it(`opens the settings with the current tab, and the first one, fully visible (${colorScheme})`, async () => {
      const page = await browser.newPage({ ...PHONE, colorScheme });
      const nav = page.getByRole('navigation', { name: 'Settings' });
      const tabVisible = async (name: string) => {
        const tab = await nav.getByRole('link', { name }).boundingBox();
        const strip = await nav.boundingBox();
        if (!tab || !strip) return false;
        return tab.x >= Math.max(0, strip.x) && tab.x + tab.width <= Math.min(PHONE.width, strip.x + strip.width);
      };
      await openLoggedIn(page, fm.url, admin.token, '/settings/profile');
      await nav.getByRole('link').first().waitFor();
      await shot(page, `settings-tabs-${colorScheme}`);
      expect(await tabVisible('Profile settings')).toBe(true);
      // Opened on the last tab, the strip scrolls to it; going back brings the first one fully back.
      await page.goto(`${fm.url}/settings/users`);
      await expect.poll(() => tabVisible('User management')).toBe(true);
      await shot(page, `settings-tabs-users-${colorScheme}`);
      await nav.getByRole('link', { name: 'Profile settings' }).click();
      await expect.poll(() => tabVisible('Profile settings')).toBe(true);
      // The page itself never scrolls sideways.
      expect(await page.evaluate(() => [window.scrollX, document.documentElement.scrollWidth])).toEqual([0, PHONE.width]);
    });
  }
});
