/** The branding folder in a real browser: its logo replaces the default one and its custom.css applies, within the page's CSP. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('branding', () => {
  const browser = useBrowser();
  const branding = tempDir('fm-e2e-branding-');
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fs.mkdirSync(path.join(branding, 'img'));
    // 120×40: the default logo has no such intrinsic size, so the size tells which one loaded.
    fs.writeFileSync(
      path.join(branding, 'img/logo.svg'),
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="red"/></svg>',
    );
    fs.writeFileSync(path.join(branding, 'custom.css'), '.header { background-color: rgb(1, 2, 3) !important; }');
    fm = await startFm();
    admin = await adminClient(fm);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary settings JSON
    const s = await admin.json<Record<string, any>>('/api/settings');
    expect((await admin.fetch('/api/settings', { method: 'PUT', json: { ...s, branding: { ...s.branding, files: branding } } })).status).toBe(200);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(branding, { recursive: true, force: true });
  });

  it('shows the folder’s logo in the header and applies its custom.css', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    const logo = page.locator('header img.header-logo');
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    expect(await logo.getAttribute('src')).toBe('/static/img/logo.svg');
    await expect.poll(() => page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).toBe('rgb(1, 2, 3)');
  });

  it('shows the default logo and no custom style without a branding folder', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary settings JSON
    const s = await admin.json<Record<string, any>>('/api/settings');
    await admin.fetch('/api/settings', { method: 'PUT', json: { ...s, branding: { ...s.branding, files: '' } } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    const logo = page.locator('header img.header-logo');
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(await logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).not.toBe(120);
    expect(await page.locator('header').evaluate((h) => getComputedStyle(h).backgroundColor)).not.toBe('rgb(1, 2, 3)');
  });
});
