/**
 * axe-core finds no violation (any rule, any impact) on the screens of the file browser: login,
 * the listing in its three views and with a selection, every prompt, each preview type, the
 * editor, search, the upload panel, the shell and the error screens (light, 1280 px; dark, RTL
 * and 390 px are in axe-variants.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';

/** The folder's listing request, with or without the paging the UI adds. */
const FOLDER_LISTING = /\/api\/resources\/folder(\?|$)/;

/** Checks the page as it is now; the screen's name leads the failure message. */
async function expectNoViolations(page: Page, screen: string): Promise<void> {
  expect.soft((await axeViolations(page)).join('\n'), screen).toBe('');
}

const headerButton = (page: Page, name: string) => page.locator('header').getByRole('button', { name, exact: true });

describe('axe: the file browser', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  let upload: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-axe-files-');
    upload = path.join(tempDir('fm-e2e-axe-upload-'), 'big.bin');
    fs.writeFileSync(upload, Buffer.alloc(512 * 1024, 1));
    fs.mkdirSync(path.join(root, 'folder'));
    fs.mkdirSync(path.join(root, 'media'));
    fs.writeFileSync(path.join(root, 'notes.txt'), 'plain text\nline two\n');
    fs.writeFileSync(path.join(root, 'folder/notes.txt'), 'inner');
    await sharp({ create: { width: 320, height: 240, channels: 3, background: '#3498db' } }).toFile(path.join(root, 'media/photo.jpg'));
    await sharp({ create: { width: 320, height: 240, channels: 3, background: '#8e44ad' } })
      .tiff()
      .toFile(path.join(root, 'media/scan.tif'));
    fs.writeFileSync(path.join(root, 'media/blob.bin'), Buffer.alloc(64, 1));
    fs.writeFileSync(path.join(root, 'media/sound.wav'), Buffer.alloc(64, 0));
    fm = await startFm({ root });
    admin = await adminClient(fm);
    await admin.fetch('/api/settings', { method: 'PUT', json: { enableExec: true, shell: [] } });
    const maker = await browser.newPage();
    await maker.setContent('<h1>fm pdf</h1>');
    fs.writeFileSync(path.join(root, 'media/paper.pdf'), await maker.pdf());
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(path.dirname(upload), { recursive: true, force: true });
  });

  it('login, the listing in list, mosaic and gallery views, and with a selection', async () => {
    const page = await browser.newPage();
    await page.goto(`${fm.url}/login`);
    await page.getByLabel('Username').waitFor();
    await expectNoViolations(page, 'login');

    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: /^notes\.txt/ }).waitFor();
    await expectNoViolations(page, 'listing (list)');
    for (const view of ['mosaic', 'gallery']) {
      await headerButton(page, 'Switch view').click();
      await page.locator(`.listing-${view}`).waitFor();
      await expectNoViolations(page, `listing (${view})`);
    }
    await headerButton(page, 'Switch view').click();
    await page.locator('.listing-list').waitFor();
    await page.getByRole('option', { name: /^notes\.txt/ }).click();
    await headerButton(page, 'Info').waitFor();
    await expectNoViolations(page, 'listing with a selection');
  });

  it('every prompt', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: /^notes\.txt/ }).click();
    for (const [action, dialog] of [
      ['Info', 'File information'],
      ['Move file', 'Move'],
      ['Copy file', 'Copy'],
      ['Rename', 'Rename'],
      ['Delete', 'Delete files'],
      ['Share', 'Share "notes.txt"'],
      ['Upload', 'Upload'],
    ]) {
      await headerButton(page, action).click();
      await page.getByRole('dialog', { name: dialog }).waitFor();
      await expectNoViolations(page, `prompt: ${action}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    }
    for (const action of ['New folder', 'New file']) {
      await page.getByRole('button', { name: action, exact: true }).click();
      await page.getByRole('dialog', { name: action }).waitFor();
      await expectNoViolations(page, `prompt: ${action}`);
      await page.keyboard.press('Escape');
    }
    await page.getByRole('option', { name: /^folder/ }).click();
    await headerButton(page, 'Download').click();
    await page.getByRole('dialog', { name: 'Download files' }).waitFor();
    await expectNoViolations(page, 'prompt: Download');
    await page.keyboard.press('Escape');
    await page.getByRole('option', { name: /^notes\.txt/ }).click();

    await page.keyboard.press('F1');
    await page.getByRole('dialog', { name: 'Help' }).waitFor();
    await expectNoViolations(page, 'prompt: Help');
    await page.keyboard.press('Escape');

    // A copy into the folder that holds the file asks Rename or Replace.
    await headerButton(page, 'Copy file').click();
    const copy = page.getByRole('dialog', { name: 'Copy' });
    await copy.getByRole('option', { name: 'folder' }).click();
    await copy.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('dialog', { name: 'Replace' }).waitFor();
    await expectNoViolations(page, 'prompt: Replace or rename');
    await page.keyboard.press('Escape');
  });

  it('each preview type and the editor', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/media/photo.jpg');
    await page.locator('.image-viewer img').waitFor();
    await expectNoViolations(page, 'preview: image');
    await page.goto(`${fm.url}/files/media/scan.tif`);
    await expect.poll(() => page.locator('.image-viewer img').getAttribute('src')).toMatch(/^blob:/);
    await expectNoViolations(page, 'preview: TIFF');
    await page.goto(`${fm.url}/files/media/sound.wav`);
    await page.locator('audio').waitFor();
    await expectNoViolations(page, 'preview: audio');
    await page.goto(`${fm.url}/files/media/paper.pdf`);
    await page.locator('iframe.preview-pdf').waitFor();
    await expectNoViolations(page, 'preview: PDF');
    await page.goto(`${fm.url}/files/media/blob.bin`);
    await page.getByRole('link', { name: 'Open file' }).waitFor();
    await expectNoViolations(page, 'preview: none');
    await page.goto(`${fm.url}/files/notes.txt`);
    await page.getByRole('textbox', { name: 'File content' }).waitFor();
    await expectNoViolations(page, 'editor');
  });

  it('search and the shell', async () => {
    const runner = await createUser(admin, fm, 'runner', { perm: { execute: true, download: true, create: true }, commands: ['ls'] });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, runner.client.token, '/files/');
    await page.getByRole('option', { name: /^notes\.txt/ }).waitFor();
    await page.keyboard.press('Control+f');
    await page.getByRole('searchbox').fill('notes');
    await page.keyboard.press('Enter');
    await page.locator('.search-results li').first().waitFor();
    await expectNoViolations(page, 'search');
    await page.keyboard.press('Escape');

    await headerButton(page, 'Toggle shell').click();
    const shell = page.getByRole('region', { name: 'Shell' });
    await shell.getByRole('textbox', { name: 'Command' }).fill('ls');
    await shell.getByRole('textbox', { name: 'Command' }).press('Enter');
    await expect.poll(() => shell.locator('.shell-status').last().textContent()).toBe('Exit code: 0');
    await expectNoViolations(page, 'shell');
    await headerButton(page, 'Toggle shell').click();
  });

  it('the upload panel', async () => {
    // An upload slowed down keeps the panel on screen.
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: /^notes\.txt/ }).waitFor();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 32 * 1024 });
    await headerButton(page, 'Upload').click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('dialog', { name: 'Upload' }).getByRole('button', { name: 'File', exact: true }).click();
    await (await chooser).setFiles(upload);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await panel.getByRole('button', { name: /^Uploading: / }).click();
    await panel.getByRole('listitem').first().waitFor();
    await expect.poll(() => panel.getByRole('progressbar').first().getAttribute('aria-valuenow')).not.toBe('0');
    await expectNoViolations(page, 'upload panel');
    await panel.getByRole('button', { name: 'Abort uploads' }).click();
    await page.getByRole('dialog', { name: 'Abort uploads' }).waitFor();
    await expectNoViolations(page, 'prompt: confirm');
    await page.getByRole('dialog', { name: 'Abort uploads' }).getByRole('button', { name: 'Abort uploads' }).click();
    await expect.poll(() => panel.count()).toBe(0);
  });

  it('the error screens', async () => {
    browser.allowConsoleError(/404 \(Not Found\)|500 \(Internal Server Error\)|net::ERR_FAILED|Failed to load resource/);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/missing/');
    await page.getByRole('alert').getByRole('heading').waitFor();
    await expectNoViolations(page, 'error: 404 in the listing');
    await page.route(FOLDER_LISTING, (route) =>
      route.fulfill({ status: 500, contentType: 'text/plain', headers: { 'X-Fm-Error': 'internal' }, body: '500 Internal Server Error\n' }),
    );
    await page.goto(`${fm.url}/files/folder/`);
    await page.getByRole('alert').getByRole('heading', { name: 'Something really went wrong.' }).waitFor();
    await expectNoViolations(page, 'error: 500');
    await page.unroute(FOLDER_LISTING);
    await page.route(FOLDER_LISTING, (route) => route.abort('failed'));
    await page.goto(`${fm.url}/files/folder/`);
    await page.getByRole('alert').getByRole('heading', { name: "The server can't be reached." }).waitFor();
    await expectNoViolations(page, 'error: connection lost');
    for (const code of ['403', '404', '500']) {
      await page.goto(`${fm.url}/${code}`);
      await page.getByRole('heading').first().waitFor();
      await expectNoViolations(page, `error page /${code}`);
    }
  });
});
