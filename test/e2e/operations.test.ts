/** Every file operation through the UI against the real files API: create, rename, copy and move with conflicts, delete, clipboard, drag and drop. */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { itemNames, openLoggedIn, useBrowser } from '../helpers/browser.ts';

const names = (page: Page) => itemNames(page);
const header = (page: Page) => page.locator('header');

describe('file operations', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  const read = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');
  const exists = (p: string) => fs.existsSync(path.join(root, p));

  beforeAll(async () => {
    root = tempDir('fm-e2e-ops-');
    fs.mkdirSync(path.join(root, 'src'));
    fs.mkdirSync(path.join(root, 'dest'));
    fs.writeFileSync(path.join(root, 'src/report.txt'), 'new report');
    fs.writeFileSync(path.join(root, 'src/notes 100%.txt'), 'notes');
    fs.writeFileSync(path.join(root, 'dest/report.txt'), 'old report');
    fm = await startFm({ root });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  async function open(page: Page, at = '/files/') {
    await openLoggedIn(page, fm.url, admin.token, at);
    await page.locator('[role=option]').first().waitFor();
  }

  it('creates a folder, creates a file in it, renames it, and deletes both', async () => {
    const page = await browser.newPage();
    await open(page);
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByRole('dialog', { name: 'New folder' }).getByRole('textbox').fill('  Work & Play #1  ');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${fm.url}/files/Work%20%26%20Play%20%231/`);
    expect(fs.statSync(path.join(root, 'Work & Play #1')).isDirectory()).toBe(true);
    await expect.poll(() => page.getByText('It feels lonely here…').count()).toBe(1);

    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByRole('dialog', { name: 'New file' }).getByRole('textbox').fill('draft.md');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/draft\.md$/);
    expect(exists('Work & Play #1/draft.md')).toBe(true);

    // Rename from the single-file view goes to the new path.
    await header(page).getByRole('button', { name: 'Rename' }).click();
    const input = page.getByRole('dialog', { name: 'Rename' }).getByRole('textbox');
    expect(await input.inputValue()).toBe('draft.md');
    await input.fill('final.md');
    await page.keyboard.press('Enter');
    await page.waitForURL(/final\.md$/);
    expect(exists('Work & Play #1/final.md')).toBe(true);
    expect(exists('Work & Play #1/draft.md')).toBe(false);

    // Back to the folder: rename with F2 keeps the renamed item selected.
    await page.getByRole('link', { name: 'Work & Play #1' }).click();
    await page.getByRole('option', { name: 'final.md' }).click();
    await page.keyboard.press('F2');
    await page.getByRole('dialog', { name: 'Rename' }).getByRole('textbox').fill('done.md');
    await page.keyboard.press('Enter');
    await expect.poll(() => names(page)).toEqual(['done.md']);
    await expect.poll(() => itemNames(page, '[role=option][aria-selected=true]')).toEqual(['done.md']);

    // Delete with the Delete key, then the folder from the parent listing.
    await page.keyboard.press('Delete');
    await page.getByRole('dialog', { name: 'Delete files' }).getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.getByText('It feels lonely here…').count()).toBe(1);
    await page.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('option', { name: 'Work & Play #1' }).click();
    await header(page).getByRole('button', { name: 'Delete' }).click();
    await page.keyboard.press('Enter');
    await expect.poll(() => names(page)).toEqual(['dest', 'src']);
    expect(exists('Work & Play #1')).toBe(false);
  });

  it('copies into a folder with a name conflict: Rename keeps both, Replace overwrites', async () => {
    const page = await browser.newPage();
    await open(page, '/files/src/');
    await page.getByRole('option', { name: 'report.txt' }).click();
    await header(page).getByRole('button', { name: 'Copy file' }).click();
    const dialog = page.getByRole('dialog', { name: 'Copy' });
    await dialog.getByRole('option', { name: '..' }).dblclick();
    await dialog.getByRole('option', { name: 'dest' }).click();
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('dialog', { name: 'Replace' }).getByRole('button', { name: 'Rename' }).click();
    await page.waitForURL(`${fm.url}/files/dest/`);
    await expect.poll(() => names(page)).toEqual(['report (1).txt', 'report.txt']);
    expect(read('dest/report (1).txt')).toBe('new report');
    expect(read('dest/report.txt')).toBe('old report');
    expect(read('src/report.txt')).toBe('new report');

    await page.goto(`${fm.url}/files/src/`);
    await page.getByRole('option', { name: 'report.txt' }).click();
    await header(page).getByRole('button', { name: 'Copy file' }).click();
    await page.getByRole('dialog', { name: 'Copy' }).getByRole('option', { name: '..' }).dblclick();
    await page.getByRole('dialog', { name: 'Copy' }).getByRole('option', { name: 'dest' }).click();
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Replace' }).getByRole('button', { name: 'Replace' }).click();
    await page.waitForURL(`${fm.url}/files/dest/`);
    expect(read('dest/report.txt')).toBe('new report');
  });

  it('moves with the folder chooser, a name with a percent sign, and a replace', async () => {
    fs.writeFileSync(path.join(root, 'dest/notes 100%.txt'), 'old notes');
    const page = await browser.newPage();
    await open(page, '/files/src/');
    await page.getByRole('option', { name: 'notes 100%.txt' }).click();
    await header(page).getByRole('button', { name: 'Move file' }).click();
    const dialog = page.getByRole('dialog', { name: 'Move' });
    expect(await dialog.getByRole('button', { name: 'Move' }).isDisabled()).toBe(true);
    await dialog.getByRole('option', { name: '..' }).dblclick();
    await dialog.getByRole('option', { name: 'dest' }).click();
    await dialog.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('dialog', { name: 'Replace' }).getByRole('button', { name: 'Replace' }).click();
    await page.waitForURL(`${fm.url}/files/dest/`);
    expect(read('dest/notes 100%.txt')).toBe('notes');
    expect(exists('src/notes 100%.txt')).toBe(false);
  });

  it('copies and pastes with the keyboard, and moves by dragging onto a folder', async () => {
    fs.mkdirSync(path.join(root, 'kb'));
    fs.writeFileSync(path.join(root, 'kb/one.txt'), '1');
    fs.mkdirSync(path.join(root, 'kb/inner'));
    const page = await browser.newPage();
    await open(page, '/files/kb/');
    await page.getByRole('option', { name: 'one.txt' }).click();
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await expect.poll(() => names(page)).toEqual(['inner', 'one (1).txt', 'one.txt']);

    await page.getByRole('option', { name: 'one (1).txt' }).click();
    await page.keyboard.press('Control+x');
    await page.getByRole('option', { name: 'inner' }).dblclick();
    await page.waitForURL(/\/kb\/inner\/$/);
    await page.getByText('It feels lonely here…').waitFor();
    await page.keyboard.press('Control+v');
    await expect.poll(() => names(page)).toEqual(['one (1).txt']);
    expect(exists('kb/one (1).txt')).toBe(false);

    await page.getByRole('link', { name: 'kb' }).click();
    await page.getByRole('option', { name: 'one.txt' }).dragTo(page.getByRole('option', { name: 'inner' }));
    await expect.poll(() => names(page)).toEqual(['inner']);
    expect(read('kb/inner/one.txt')).toBe('1');
  });

  it('downloads one file directly and several items as an archive in the chosen format', async () => {
    const page = await browser.newPage();
    await open(page, '/files/src/');
    await page.getByRole('option', { name: 'report.txt' }).click();
    const [single] = await Promise.all([page.waitForEvent('download'), header(page).getByRole('button', { name: 'Download' }).click()]);
    expect(single.suggestedFilename()).toBe('report.txt');
    expect(fs.readFileSync(await single.path(), 'utf8')).toBe('new report');

    await page.goto(`${fm.url}/files/`);
    await page.getByRole('option', { name: 'dest' }).click();
    await page.getByRole('option', { name: 'src' }).click({ modifiers: ['Control'] });
    await header(page).getByRole('button', { name: 'Download' }).click();
    const formats = page.getByRole('dialog', { name: 'Download files' }).getByRole('button');
    expect(await formats.allTextContents()).toEqual(['zip', 'tar', 'tar.gz', 'tar.bz2', 'tar.xz', 'tar.lz4', 'tar.sz', 'Cancel']);
    const [archive] = await Promise.all([page.waitForEvent('download'), formats.filter({ hasText: 'tar.gz' }).click()]);
    expect(archive.suggestedFilename()).toMatch(/\.tar\.gz$/);
    const bytes = fs.readFileSync(await archive.path());
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('shows the checksums of a file on request', async () => {
    const page = await browser.newPage();
    await open(page, '/files/src/');
    await page.getByRole('option', { name: 'report.txt' }).click();
    await header(page).getByRole('button', { name: 'Info' }).click();
    await page.locator('[data-checksum=md5]').click();
    await expect.poll(() => page.locator('[data-checksum-value=md5]').textContent()).toBe(createHash('md5').update('new report').digest('hex'));
  });
});
