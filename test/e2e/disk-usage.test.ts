/** The sidebar's disk usage follows the folder on view (the parent of a file), read through the query cache. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

describe('disk usage', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-root-');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs/inside.md'), '# hi');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('asks for the usage of the folder of the file on view, never of the file', async () => {
    const page = await browser.newPage();
    const asked: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/api/usage')) asked.push(u.pathname);
    });
    await openLoggedIn(page, fm.url, admin.token, '/files/docs/inside.md');
    await page.getByRole('form', { name: 'inside.md' }).waitFor();
    await page.getByRole('complementary').getByRole('progressbar').waitFor();
    await expect.poll(() => asked).toContain('/api/usage/docs/');
    expect(asked.filter((p) => p.includes('inside.md'))).toEqual([]);
    expect(await page.getByRole('alert').count()).toBe(0);

    await page.getByRole('navigation', { name: 'Location' }).getByRole('link', { name: 'Home' }).click();
    await expect.poll(() => asked).toContain('/api/usage/');
  });
});
