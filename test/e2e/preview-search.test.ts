/** The search overlay and the preview of one file in a real browser: images, TIFF, video with captions, PDF, text. */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

/** A short VP8 WebM recorded by Chromium itself (no ffmpeg on the machine). */
async function makeWebm(page: Page): Promise<Buffer> {
  const bytes = await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 64;
    c.height = 48;
    const g = c.getContext('2d')!;
    const rec = new MediaRecorder(c.captureStream(25), { mimeType: 'video/webm;codecs=vp8' });
    const chunks: Blob[] = [];
    rec.ondataavailable = (e) => chunks.push(e.data);
    rec.start(100);
    for (let f = 0; f < 12; f++) {
      g.fillStyle = `hsl(${f * 30},70%,50%)`;
      g.fillRect(0, 0, 64, 48);
      await new Promise((r) => setTimeout(r, 40));
    }
    await new Promise((r) => {
      rec.onstop = r;
      rec.stop();
    });
    return Array.from(new Uint8Array(await new Blob(chunks).arrayBuffer()));
  });
  return Buffer.from(bytes);
}

describe('search and preview', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-preview-');
    fs.mkdirSync(path.join(root, 'media'));
    fs.mkdirSync(path.join(root, 'many'));
    for (const [name, colour] of [
      ['a.jpg', '#e74c3c'],
      ['b.png', '#3498db'],
      ['c.jpg', '#2ecc71'],
    ]) {
      await sharp({ create: { width: 320, height: 240, channels: 3, background: colour } }).toFile(path.join(root, 'media', name));
    }
    await sharp({ create: { width: 300, height: 200, channels: 3, background: '#8e44ad' } })
      .tiff({ compression: 'lzw' })
      .toFile(path.join(root, 'media/scan.tif'));
    fs.writeFileSync(path.join(root, 'media/notes.txt'), 'plain text\nline two\n');
    fs.writeFileSync(path.join(root, 'media/zz.bin'), Buffer.alloc(64, 1));
    fs.writeFileSync(path.join(root, 'media/clip.vtt'), 'WEBVTT\n\n00:00.000 --> 00:05.000\nHello captions\n');
    for (let i = 0; i < 120; i++) fs.writeFileSync(path.join(root, 'many', `item-${String(i).padStart(3, '0')}.log`), '');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    const maker = await browser.newPage();
    await maker.setContent('<h1>fm pdf</h1>');
    fs.writeFileSync(path.join(root, 'media/paper.pdf'), await maker.pdf());
    fs.writeFileSync(path.join(root, 'media/clip.webm'), await makeWebm(maker));
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('searches from Ctrl+F, shows 50 results and 50 more near the bottom, and opens a result', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.getByRole('option', { name: 'media' }).waitFor();
    await page.keyboard.press('Control+f');
    const input = page.getByRole('searchbox', { name: 'Search…' });
    await expect.poll(() => input.evaluate((el) => el === document.activeElement)).toBe(true);
    // A type shortcut goes in front of the query.
    await page.getByRole('button', { name: 'Images' }).click();
    expect(await input.inputValue()).toBe('type:image ');
    await input.press('Enter');
    const results = page.getByRole('list', { name: /^Search results/ });
    await expect.poll(() => results.locator('.search-path').allInnerTexts()).toEqual(['media/a.jpg', 'media/b.png', 'media/c.jpg', 'media/scan.tif']);
    // Typing drops the old results; Enter searches again.
    await input.fill('item-');
    expect(await results.count()).toBe(0);
    await input.press('Enter');
    await expect.poll(() => page.getByRole('list', { name: 'Search results: 120' }).count()).toBe(1);
    expect(await results.getByRole('link').count()).toBe(50);
    await page.locator('.search-results').evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(() => results.getByRole('link').count()).toBe(100);
    await input.fill('notes');
    await input.press('Enter');
    await results.getByRole('link', { name: 'media/notes.txt' }).click();
    await page.waitForURL(`${fm.url}/files/media/notes.txt`);
    expect(await page.getByRole('dialog', { name: 'Search' }).count()).toBe(0);
    // The text is shown, and editable with modify permission: Ctrl+S saves.
    const editor = page.getByRole('textbox', { name: 'File content' });
    expect(await editor.inputValue()).toBe('plain text\nline two\n');
    await editor.fill('edited\n');
    await editor.press('Control+s');
    await expect.poll(() => page.getByRole('status').textContent()).toBe('File saved!');
    expect(fs.readFileSync(path.join(root, 'media/notes.txt'), 'utf8')).toBe('edited\n');

    // Escape closes the overlay and gives the scrolling back.
    await page.keyboard.press('Control+f');
    await input.waitFor();
    expect(await page.evaluate(() => document.body.style.overflow)).toBe('hidden');
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog', { name: 'Search' }).count()).toBe(0);
    expect(await page.evaluate(() => document.body.style.overflow)).toBe('');
  });

  it('moves through the folder media with the keys and buttons, toggles full size, and closes with Escape', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/media/a.jpg');
    const img = page.locator('.image-viewer img');
    await expect.poll(() => img.getAttribute('src')).toMatch(/\/api\/preview\/big\/media\/a\.jpg\?/);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(320);
    expect(await page.title()).toBe('a.jpg - fm');
    await page.getByRole('button', { name: 'Show full size' }).click();
    await expect.poll(() => img.getAttribute('src')).toMatch(/\/api\/raw\/media\/a\.jpg\?inline=true$/);
    // Zoom: a wheel notch up is one step.
    await img.hover();
    await page.mouse.wheel(0, -100);
    await expect.poll(() => page.locator('.image-viewer').getAttribute('data-scale')).toBe('1.25');
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(`${fm.url}/files/media/b.png`);
    // Enter on a focused button presses it; elsewhere it moves on.
    await page.locator('.preview-title').click();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${fm.url}/files/media/c.jpg`);
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL(`${fm.url}/files/media/b.png`);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(`${fm.url}/files/media/c.jpg`);
    // The arrows hide after 1.5 s without mouse movement (unless hovered) and come back with it.
    await page.mouse.move(640, 120);
    await expect.poll(() => page.locator('.preview-arrow-hidden').count(), { timeout: 4000 }).toBe(2);
    await page.mouse.move(200, 200);
    await page.mouse.move(210, 220);
    await expect.poll(() => page.locator('.preview-arrow-hidden').count()).toBe(0);
    // pdf and text are not media: after c.jpg come scan.tif and zz.bin (blob), the video first.
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(`${fm.url}/files/media/clip.webm`);
    await page.keyboard.press('Escape');
    await page.waitForURL(`${fm.url}/files/media/`);
    await page.getByRole('option', { name: 'a.jpg' }).waitFor();
  });

  it('plays a video with its caption track, shows a PDF natively and decodes a TIFF in the browser', async () => {
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/media/clip.webm');
    const track = page.locator('video track');
    await expect.poll(() => track.getAttribute('src')).toBe('/api/subtitle/media/clip.vtt');
    expect(await track.getAttribute('kind')).toBe('captions');
    await expect.poll(() => track.evaluate((t: HTMLTrackElement) => t.readyState)).toBe(2);
    expect(await track.evaluate((t: HTMLTrackElement) => (t.track.cues?.[0] as VTTCue | undefined)?.text)).toBe('Hello captions');
    expect(await page.locator('video').getAttribute('src')).toBe('/api/raw/media/clip.webm?inline=true');

    await page.goto(`${fm.url}/files/media/paper.pdf`);
    const frame = page.locator('iframe.preview-pdf');
    await expect.poll(() => frame.getAttribute('src')).toBe('/api/raw/media/paper.pdf?inline=true');
    expect(await frame.getAttribute('title')).toBe('paper.pdf');

    await page.goto(`${fm.url}/files/media/scan.tif`);
    const tiff = page.locator('.image-viewer img');
    await expect.poll(() => tiff.getAttribute('src')).toMatch(/^blob:/);
    await expect.poll(() => tiff.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight])).toEqual([300, 200]);

    await page.goto(`${fm.url}/files/media/zz.bin`);
    await page.getByText('No preview available for this file.').waitFor();
    expect(await page.getByRole('link', { name: 'Open file' }).getAttribute('href')).toBe('/api/raw/media/zz.bin?inline=true');
  });

  it('deletes from the preview and moves on to the next item', async () => {
    fs.copyFileSync(path.join(root, 'media/a.jpg'), path.join(root, 'media/a2.jpg'));
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, admin.token, '/files/media/a2.jpg');
    await page.locator('.image-viewer img').waitFor();
    await page.getByRole('button', { name: 'Next' }).waitFor();
    await page.locator('.preview-header').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete files' }).getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${fm.url}/files/media/b.png`);
    expect(fs.existsSync(path.join(root, 'media/a2.jpg'))).toBe(false);
  });

  it('shows text read-only with a download button to a user without modify permission', async () => {
    fs.writeFileSync(path.join(root, 'media/readme.txt'), 'look, do not touch\n');
    const reader = await createUser(admin, fm, 'reader', { perm: { download: true, modify: false } });
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, reader.client.token, '/files/media/readme.txt');
    await page.getByRole('button', { name: 'Download' }).first().waitFor();
    expect(await page.locator('pre.text-view-content').innerText()).toBe('look, do not touch\n');
    expect(await page.getByRole('textbox', { name: 'File content' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
    // No rename, delete or share without those permissions.
    await openLoggedIn(page, fm.url, reader.client.token, '/files/media/a.jpg');
    await page.locator('.image-viewer img').waitFor();
    expect(await page.locator('.preview-header button').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual([
      'Close',
      'Show full size',
      'Download',
      'Info',
    ]);
  });
});
