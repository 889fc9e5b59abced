/**
 * Upload-only (drop) links in a real browser: the owner makes one in the share dialog and sees
 * what arrived in share management; a visitor unlocks it with the password and sends files by
 * the keyboard, the pickers and a drop (never seeing the folder's items), is told when a limit
 * refuses a file, and resumes an interrupted tus upload after a reload, byte-identical. The
 * page passes axe in light, dark and at 390 px.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShareDto } from '../../src/api/shares.ts';
import { axeViolations } from '../helpers/axe.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { patchSettings } from '../helpers/http-raw.ts';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';

const SHOTS = process.env.FM_SHOTS ?? '';

describe('drop links', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  let files: string;
  const inbox = () => path.join(root, 'inbox');

  beforeAll(async () => {
    root = tempDir('fm-e2e-drop-');
    files = tempDir('fm-e2e-drop-files-');
    fs.mkdirSync(path.join(root, 'inbox'));
    fs.writeFileSync(path.join(root, 'inbox/kept.txt'), 'already there');
    fm = await startFm({ root, args: ['--log', 'off'] });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(files, { recursive: true, force: true });
  });

  async function makeDrop(body: Record<string, unknown> = {}): Promise<ShareDto> {
    return admin.json<ShareDto>('/api/share/inbox', { method: 'POST', json: { uploadOnly: true, ...body } });
  }

  async function shot(page: Page, name: string) {
    if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  function resetInbox() {
    fs.rmSync(inbox(), { recursive: true, force: true });
    fs.mkdirSync(inbox());
    fs.writeFileSync(path.join(inbox(), 'kept.txt'), 'already there');
  }

  it('the owner makes an upload-only link with limits; share management shows what arrived', async () => {
    resetInbox();
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'inbox' }).click();
    await page.locator('header').getByRole('button', { name: 'Share' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share "inbox"' });
    await dialog.getByLabel('Upload only').check();
    await dialog.getByLabel('Most files').fill('0');
    expect(await dialog.getByRole('button', { name: 'Share' }).isDisabled()).toBe(true);
    await dialog.getByLabel('Most files').fill('5');
    await dialog.getByLabel('Largest file (e.g. 100MB)').fill('1MB');
    await shot(page, 'drop-dialog');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Share' }).click();
    const links = dialog.getByRole('list', { name: 'Share links' });
    await links.getByText('Files received: 0').waitFor();
    await shot(page, 'drop-dialog-list');
    const link = (await admin.json<ShareDto[]>('/api/shares')).find((s) => s.uploadOnly)!;
    expect(link.limits).toEqual({ maxFiles: 5, maxFileSize: 1024 * 1024 });

    const sent = await fetch(`${fm.url}/api/public/upload/${link.hash}/a.txt`, { method: 'POST', body: 'arrived' });
    expect(sent.status).toBe(201);
    await page.goto(`${fm.url}/settings/shares`);
    const row = page.locator(`tr[data-hash="${link.hash}"]`);
    await row.getByText('Files received: 1').waitFor();
    expect(await row.locator('time').count()).toBeGreaterThan(0);
    await shot(page, 'drop-settings');
  });

  it('a visitor unlocks the link with its password and sends files by keyboard, picker and drop, never seeing the items', async () => {
    resetInbox();
    const link = await makeDrop({ password: 'drop it' });
    const page = await browser.newPage();
    browser.allowConsoleError(/401 \(Unauthorized\)/);
    await page.goto(`${fm.url}/share/${link.hash}`);
    await page.getByRole('heading', { name: 'Password required' }).waitFor();
    await page.getByLabel('Password').fill('drop it');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('heading', { name: 'Upload to inbox' }).waitFor();
    expect(await page.getByText('kept.txt').count()).toBe(0);

    // The keyboard reaches the file picker.
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Choose files' }).press('Enter');
    await (await chooser).setFiles([
      { name: 'kept.txt', mimeType: 'text/plain', buffer: Buffer.from('from the visitor') },
      { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# notes') },
    ]);
    // A drop of a file (a synthetic DataTransfer: Chromium gives it no entries, so its files are read).
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['dropped'], 'dropped.txt', { type: 'text/plain' }));
      const zone = document.querySelector('[data-drop-zone]')!;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    const list = page.getByRole('list', { name: 'Uploads' });
    await expect.poll(() => list.locator('[data-status=done]').count()).toBe(3);
    expect(fs.readFileSync(path.join(inbox(), 'kept.txt'), 'utf8')).toBe('already there');
    expect(fs.readFileSync(path.join(inbox(), 'kept (1).txt'), 'utf8')).toBe('from the visitor');
    expect(fs.readFileSync(path.join(inbox(), 'notes.md'), 'utf8')).toBe('# notes');
    expect(fs.readFileSync(path.join(inbox(), 'dropped.txt'), 'utf8')).toBe('dropped');
    await shot(page, 'drop-page');
    expect(await axeViolations(page)).toEqual([]);
  });

  it('sends a folder into subfolders, and says why a file over a limit was refused', async () => {
    resetInbox();
    const link = await makeDrop({ maxFiles: 2 });
    const page = await browser.newPage();
    browser.allowConsoleError(/413 \(Payload Too Large\)/);
    await page.goto(`${fm.url}/share/${link.hash}`);
    await page.getByText('Files: 2 of 2 left').waitFor();
    const album = path.join(files, 'album');
    fs.mkdirSync(path.join(album, 'inner'), { recursive: true });
    fs.writeFileSync(path.join(album, 'one.txt'), 'one');
    fs.writeFileSync(path.join(album, 'inner/two.txt'), 'two');
    fs.writeFileSync(path.join(album, 'inner/three.txt'), 'three');
    await page.locator('input[data-drop=folder]').setInputFiles(album);
    const list = page.getByRole('list', { name: 'Uploads' });
    await expect.poll(() => list.locator('[data-status=done], [data-status=failed]').count()).toBe(3);
    expect(await list.locator('[data-status=done]').count()).toBe(2);
    await list.getByRole('alert').filter({ hasText: 'This link accepts no more files.' }).waitFor();
    await page.getByText('Files: 0 of 2 left').waitFor();
    await shot(page, 'drop-page-limit');
    expect(await axeViolations(page)).toEqual([]);
    const arrived = fs.readdirSync(inbox(), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(arrived).toHaveLength(3);
    expect(fs.existsSync(path.join(inbox(), 'album'))).toBe(true);
  });

  it('resumes an interrupted upload after a reload, and the file arrives byte-identical', async () => {
    resetInbox();
    await patchSettings(fm.dbFile, (s) => ({ ...s, tus: { ...s.tus, chunkSize: 64 * 1024, retryCount: 0 } }));
    const link = await makeDrop();
    const big = path.join(files, 'big.bin');
    const data = crypto.randomBytes(640 * 1024);
    fs.writeFileSync(big, data);
    const page = await browser.newPage();
    browser.allowConsoleError(/ERR_CONNECTION_RESET|ERR_FAILED/);
    let patches = 0;
    await page.route('**/api/public/tus/**', (route) => {
      if (route.request().method() === 'PATCH' && ++patches > 3) return route.abort('connectionreset');
      return route.continue();
    });
    await page.goto(`${fm.url}/share/${link.hash}`);
    await page.locator('input[data-drop=files]').setInputFiles(big);
    const list = page.getByRole('list', { name: 'Uploads' });
    await list.locator('[data-status=failed]').waitFor();
    await list.getByText("The server can't be reached.").waitFor();
    await page.unrouteAll();

    await page.reload();
    const seen: Array<{ method: string; offset?: string }> = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/public/tus/')) seen.push({ method: r.method(), offset: r.headers()['upload-offset'] });
    });
    await page.locator('input[data-drop=files]').setInputFiles(big);
    await list.locator('[data-status=done]').waitFor();
    // No new upload was made: the first request asked for the offset, the first chunk went on from it.
    expect(seen.some((r) => r.method === 'POST')).toBe(false);
    expect(seen[0].method).toBe('HEAD');
    expect(Number(seen.find((r) => r.method === 'PATCH')?.offset)).toBe(3 * 64 * 1024);
    expect(
      crypto
        .createHash('sha256')
        .update(fs.readFileSync(path.join(inbox(), 'big.bin')))
        .digest('hex'),
    ).toBe(crypto.createHash('sha256').update(data).digest('hex'));
  });

  it('retries a failed upload from the keyboard, going on from where it stopped', async () => {
    resetInbox();
    const link = await makeDrop();
    const file = path.join(files, 'retry.bin');
    const data = crypto.randomBytes(256 * 1024);
    fs.writeFileSync(file, data);
    const page = await browser.newPage();
    browser.allowConsoleError(/ERR_CONNECTION_RESET|ERR_FAILED/);
    let patches = 0;
    await page.route('**/api/public/tus/**', (route) =>
      route.request().method() === 'PATCH' && ++patches === 2 ? route.abort('connectionreset') : route.continue(),
    );
    await page.goto(`${fm.url}/share/${link.hash}`);
    await page.locator('input[data-drop=files]').setInputFiles(file);
    const list = page.getByRole('list', { name: 'Uploads' });
    await list.locator('[data-status=failed]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const offsets: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'PATCH') offsets.push(r.headers()['upload-offset']);
    });
    await list.getByRole('button', { name: 'Send retry.bin again' }).focus();
    await page.keyboard.press('Enter');
    await list.locator('[data-status=done]').waitFor();
    expect(offsets[0]).toBe(String(64 * 1024));
    expect(fs.readFileSync(path.join(inbox(), 'retry.bin')).equals(data)).toBe(true);
  });

  it('passes axe in dark and at 390 px', async () => {
    const link = await makeDrop({ maxFiles: 3, maxBytes: 10 * 1024 * 1024 });
    for (const [name, opts] of [
      ['dark', { colorScheme: 'dark' as const }],
      ['390', { width: 390, height: 800 }],
    ] as const) {
      const page = await browser.newPage(opts);
      await page.goto(`${fm.url}/share/${link.hash}`);
      await page.getByRole('heading', { name: 'Upload to inbox' }).waitFor();
      await page
        .locator('input[data-drop=files]')
        .setInputFiles({ name: 'a-rather-long-file-name-for-a-small-screen.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
      await page.getByRole('list', { name: 'Uploads' }).locator('[data-status=done]').waitFor();
      expect(await axeViolations(page), name).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true);
      await shot(page, `drop-page-${name}`);
    }
  });
});
