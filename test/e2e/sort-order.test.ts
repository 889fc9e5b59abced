/**
 * One name order: the UI shows a folder in the server's order (no client re-sort), a changed
 * sorting is asked of the server, and the folder chooser (which sorts locally) uses the shared key.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { compareNames } from '../../src/api/files.ts';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const NAMES = ['_x', '.hidden', 'a_b', 'a-b', 'A2', 'a10', 'a9'];
/** fm's order (src/api/files.ts nameSortKey): punctuation by code, digits naturally, case-insensitive. */
const EXPECTED = ['.hidden', '_x', 'a-b', 'A2', 'a9', 'a10', 'a_b'];

describe('listing order', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-root-');
    for (const n of NAMES) {
      fs.mkdirSync(path.join(root, 'dirs', n), { recursive: true });
      fs.mkdirSync(path.join(root, 'files'), { recursive: true });
      fs.writeFileSync(path.join(root, 'files', n), n);
    }
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const shown = (page: Page) => itemNames(page);
  const served = async (dir: string) => (await admin.json<{ items: { name: string }[] }>(`/api/resources/${dir}/`)).items.map((i) => i.name);

  it('shows the server order, the same as the shared sort key, for names with _ . - and digits', async () => {
    expect([...NAMES].sort(compareNames)).toEqual(EXPECTED);
    expect(await served('files')).toEqual(EXPECTED);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/files/');
    await expect.poll(() => shown(page)).toEqual(EXPECTED);

    // Z→A: the server sorts again and the listing follows it.
    await page.getByRole('button', { name: 'Sort by name' }).click();
    await expect.poll(() => shown(page)).toEqual([...EXPECTED].reverse());
    expect(await served('files')).toEqual([...EXPECTED].reverse());
    await page.getByRole('button', { name: 'Sort by name' }).click();
    await expect.poll(() => shown(page)).toEqual(EXPECTED);
  });

  it('lists folders in the folder chooser in the same order', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/files/');
    await page.getByRole('option', { name: 'a9' }).click();
    await page.getByRole('button', { name: 'Copy file' }).click();
    const chooser = page.getByRole('dialog');
    await chooser.getByRole('option', { name: '..' }).dblclick();
    await chooser.getByRole('option', { name: 'dirs' }).dblclick();
    const folders = () => chooser.getByRole('option').evaluateAll((els) => els.map((e) => e.textContent?.trim()));
    await expect.poll(folders).toEqual(['..', ...EXPECTED]);
  });
});
