/**
 * Live listings in the browser: two pages on the same folder, a change made in one (create,
 * rename, delete, upload) appears in the other within 2 s, and so does a file written by
 * another process; the other page keeps its selection and its scroll position meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const WITHIN = { timeout: 2000 };

describe('live listings', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  let src: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-live-');
    src = tempDir('fm-e2e-live-src-');
    fs.mkdirSync(path.join(root, 'shared'));
    fs.writeFileSync(path.join(root, 'shared/keep.txt'), 'keep');
    fs.writeFileSync(path.join(src, 'sent.txt'), 'uploaded');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    for (let i = 0; i < 500; i++) {
      const s = await admin.json<{ ready: boolean }>('/api/search-status');
      if (s.ready) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(src, { recursive: true, force: true });
  });

  /** Resolves when the page's live stream has been answered (wait for it before changing anything). */
  const streamOpened = (page: Page) => page.waitForResponse((r) => r.url().includes('/api/events/') && r.status() === 200);

  async function open(at = '/files/shared/'): Promise<Page> {
    const page = await browser.newPage();
    const live = streamOpened(page);
    await openLoggedIn(page, fm.url, admin.token, at);
    await page.getByRole('option', { name: 'keep.txt' }).waitFor();
    await live;
    return page;
  }

  it('create, rename and delete in one page appear in the other within 2 s; its selection and mode stay', async () => {
    const watcher = await open();
    const actor = await open();
    // Multiple-selection mode, which a reload would end (spec §4) and a live update must not.
    await watcher.getByRole('button', { name: 'Select multiple' }).click();
    await watcher.getByRole('option', { name: 'keep.txt' }).click();

    await actor.getByRole('button', { name: 'New folder' }).click();
    await actor.getByRole('dialog', { name: 'New folder' }).getByRole('textbox').fill('made here');
    await actor.keyboard.press('Enter');
    await expect.poll(() => itemNames(watcher), WITHIN).toEqual(['made here', 'keep.txt']);
    // The keyboard cursor stayed on its entry, which moved down one place.
    expect(await itemNames(watcher, '[role=option][tabindex="0"]')).toEqual(['keep.txt']);

    await actor.getByRole('link', { name: 'shared' }).click();
    await actor.getByRole('option', { name: 'made here' }).click();
    await actor.keyboard.press('F2');
    await actor.getByRole('dialog', { name: 'Rename' }).getByRole('textbox').fill('renamed');
    await actor.keyboard.press('Enter');
    await expect.poll(() => itemNames(watcher), WITHIN).toEqual(['renamed', 'keep.txt']);

    await actor.getByRole('option', { name: 'renamed' }).click();
    await actor.keyboard.press('Delete');
    await actor.getByRole('dialog', { name: 'Delete files' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => itemNames(watcher), WITHIN).toEqual(['keep.txt']);
    // The selection in the watching page survived every update.
    expect(await itemNames(watcher, '[role=option][aria-selected=true]')).toEqual(['keep.txt']);
    expect(await watcher.getByRole('button', { name: 'Select multiple' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('a folder removed while open shows that it is gone', async () => {
    fs.mkdirSync(path.join(root, 'doomed'));
    fs.writeFileSync(path.join(root, 'doomed/x.txt'), 'x');
    const page = await browser.newPage();
    const live = streamOpened(page);
    await openLoggedIn(page, fm.url, admin.token, '/files/doomed/');
    await page.getByRole('option', { name: 'x.txt' }).waitFor();
    await live;
    browser.allowConsoleError(/404/);
    fs.rmSync(path.join(root, 'doomed'), { recursive: true });
    await page.getByRole('heading', { name: "This location can't be reached." }).waitFor({ timeout: 5000 });
  });

  it("an upload's finished file appears in the other page", async () => {
    const watcher = await open();
    const actor = await open();
    await actor.locator('header').getByRole('button', { name: 'Upload' }).click();
    const chooser = actor.waitForEvent('filechooser');
    await actor.getByRole('dialog', { name: 'Upload' }).getByRole('button', { name: 'File', exact: true }).click();
    await (await chooser).setFiles(path.join(src, 'sent.txt'));
    await actor.getByRole('status').filter({ hasText: 'Upload complete!' }).waitFor({ timeout: 20_000 });
    await watcher.getByRole('option', { name: 'sent.txt' }).waitFor(WITHIN);
    fs.rmSync(path.join(root, 'shared/sent.txt'));
  });

  it('a file written by another process appears; a long listing keeps its scroll position', async () => {
    fs.mkdirSync(path.join(root, 'long'));
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(root, 'long', `f${String(i).padStart(3, '0')}.txt`), '');
    const page = await browser.newPage({ width: 390, height: 700 });
    const live = streamOpened(page);
    await openLoggedIn(page, fm.url, admin.token, '/files/long/');
    await page.getByRole('option', { name: 'f000.txt' }).waitFor();
    await live;
    const scroller = page.locator('.files');
    await scroller.evaluate((el) => el.scrollTo({ top: 600 }));
    const top = await scroller.evaluate((el) => el.scrollTop);
    expect(top).toBeGreaterThan(0);
    fs.writeFileSync(path.join(root, 'long', 'f015a.txt'), 'from elsewhere');
    await page.getByRole('option', { name: 'f015a.txt' }).waitFor({ state: 'attached', ...WITHIN });
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(top);
  });
});
