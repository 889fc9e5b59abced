/** Uploads in a real browser through tus: progress, conflicts, folders, drag and drop, abort, permissions. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

const KiB = 1024;

/** A file's text, or undefined while it does not exist yet. */
const contentOf = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

/**
 * Slows the page's uploads so that progress and abort can be seen; the returned function sets
 * another rate (-1: none) or takes the page offline (navigator.onLine and its events follow).
 */
async function throttleUploads(page: Page, bytesPerSecond: number): Promise<(bytesPerSecond: number, offline?: boolean) => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const set = async (rate: number, offline = false) => {
    await cdp.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: rate });
  };
  await set(bytesPerSecond);
  return set;
}

/** Records every overall percentage the upload panel shows. */
async function recordProgress(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { seen: number[] }).seen = seen;
    setInterval(() => {
      const v = document.querySelector('.upload-bar')?.getAttribute('aria-valuenow');
      if (v !== null && v !== undefined && seen.at(-1) !== Number(v)) seen.push(Number(v));
    }, 10);
  });
}

describe('uploads', () => {
  const browser = useBrowser();
  let fm: FmServer;
  let admin: Client;
  let root: string;
  let src: string;

  beforeAll(async () => {
    root = tempDir('fm-e2e-upload-');
    src = tempDir('fm-e2e-upload-src-');
    fs.mkdirSync(path.join(root, 'in'));
    fs.writeFileSync(path.join(root, 'in/taken.txt'), 'old');
    fs.writeFileSync(path.join(src, 'one.bin'), Buffer.alloc(700 * KiB, 1));
    fs.writeFileSync(path.join(src, 'two.bin'), Buffer.alloc(300 * KiB, 2));
    fs.writeFileSync(path.join(src, 'empty.txt'), '');
    fs.writeFileSync(path.join(src, 'taken.txt'), 'new');
    fs.mkdirSync(path.join(src, 'tree/sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'tree/a.txt'), 'A');
    fs.writeFileSync(path.join(src, 'tree/sub/b.txt'), 'B');
    fm = await startFm({ root });
    admin = await adminClient(fm);
    // Small chunks: several PATCH requests per file.
    await admin.fetch('/api/settings', { method: 'PUT', json: { tus: { chunkSize: 128 * KiB, retryCount: 3 } } });
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(src, { recursive: true, force: true });
  });

  async function open(page: Page, at = '/files/in/', client: Client = admin) {
    await openLoggedIn(page, fm.url, client.token, at);
    await page.getByRole('option').first().waitFor();
  }

  async function pick(page: Page, kind: 'File' | 'Folder', files: string | string[]) {
    await page.locator('header').getByRole('button', { name: 'Upload' }).click();
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('dialog', { name: 'Upload' }).getByRole('button', { name: kind, exact: true }).click();
    await (await chooser).setFiles(files);
  }

  it('uploads several files with progress up to 100 %, then reloads the listing', async () => {
    const page = await browser.newPage();
    await open(page);
    await throttleUploads(page, 400 * KiB);
    await recordProgress(page);
    await pick(page, 'File', [path.join(src, 'one.bin'), path.join(src, 'two.bin'), path.join(src, 'empty.txt')]);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await panel.waitFor();
    await panel.getByRole('button', { name: /^Uploading: / }).click();
    await expect.poll(() => panel.getByRole('listitem').count()).toBeGreaterThan(0);
    await page.getByRole('status').filter({ hasText: 'Upload complete!' }).waitFor({ timeout: 20_000 });
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    expect(seen.at(-1)).toBe(100);
    expect(seen.some((v) => v > 0 && v < 100)).toBe(true);
    // Each value is at least the one before: progress never goes back.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // The listing reloaded on its own.
    await page.getByRole('option', { name: 'one.bin' }).waitFor();
    await page.getByRole('option', { name: 'empty.txt' }).waitFor();
    expect(fs.readFileSync(path.join(root, 'in/one.bin')).equals(fs.readFileSync(path.join(src, 'one.bin')))).toBe(true);
    expect(fs.statSync(path.join(root, 'in/two.bin')).size).toBe(300 * KiB);
    expect(fs.statSync(path.join(root, 'in/empty.txt')).size).toBe(0);
    await expect.poll(() => panel.count(), { timeout: 5000 }).toBe(0);
  });

  it('asks on a name conflict: Continue renames, Replace overwrites', async () => {
    const page = await browser.newPage();
    await open(page);
    await pick(page, 'File', path.join(src, 'taken.txt'));
    const prompt = page.getByRole('dialog', { name: 'Replace' });
    await prompt.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('option', { name: 'taken (1).txt' }).waitFor();
    expect(fs.readFileSync(path.join(root, 'in/taken (1).txt'), 'utf8')).toBe('new');
    expect(fs.readFileSync(path.join(root, 'in/taken.txt'), 'utf8')).toBe('old');

    await pick(page, 'File', path.join(src, 'taken.txt'));
    await prompt.getByRole('button', { name: 'Replace' }).click();
    await expect.poll(() => fs.readFileSync(path.join(root, 'in/taken.txt'), 'utf8')).toBe('new');
    expect(fs.existsSync(path.join(root, 'in/taken (2).txt'))).toBe(false);
  });

  it('uploads a folder with its sub-folders; a second time only its top-level name conflicts', async () => {
    const page = await browser.newPage();
    await open(page);
    await pick(page, 'Folder', path.join(src, 'tree'));
    await page.getByRole('option', { name: 'tree' }).waitFor();
    // The folder is listed as soon as it is made, before its files have arrived.
    await expect.poll(() => contentOf(path.join(root, 'in/tree/sub/b.txt'))).toBe('B');
    await expect.poll(() => contentOf(path.join(root, 'in/tree/a.txt'))).toBe('A');

    await pick(page, 'Folder', path.join(src, 'tree'));
    await page.getByRole('dialog', { name: 'Replace' }).getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('option', { name: 'tree (1)' }).waitFor();
    await expect.poll(() => contentOf(path.join(root, 'in/tree (1)/sub/b.txt'))).toBe('B');
  });

  it('uploads files dropped on the listing, or on a folder of it', async () => {
    const page = await browser.newPage();
    await open(page, '/files/');
    const drop = async (target: string, name: string) => {
      const data = await page.evaluateHandle((n) => {
        const dt = new DataTransfer();
        dt.items.add(new File([`dropped ${n}`], n, { type: 'text/plain' }));
        return dt;
      }, name);
      const el = page.locator(target).first();
      await el.dispatchEvent('dragover', { dataTransfer: data });
      await el.dispatchEvent('drop', { dataTransfer: data });
    };
    await drop('.listing-empty, .listing-body', 'dropped.txt');
    await page.getByRole('option', { name: 'dropped.txt' }).waitFor();
    await drop('[role=option]:has(.item-name-text:text-is("in"))', 'into-folder.txt');
    await page.getByRole('status').filter({ hasText: 'Upload complete!' }).last().waitFor();
    await expect.poll(() => fs.existsSync(path.join(root, 'in/into-folder.txt'))).toBe(true);
    expect(fs.readFileSync(path.join(root, 'in/into-folder.txt'), 'utf8')).toBe('dropped into-folder.txt');
  });

  it('warns before leaving during an upload, and aborts everything after a confirmation', async () => {
    const big = path.join(src, 'big.bin');
    fs.writeFileSync(big, Buffer.alloc(3 * 1024 * KiB, 3));
    const page = await browser.newPage();
    await open(page);
    await throttleUploads(page, 64 * KiB);
    await pick(page, 'File', big);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await expect.poll(() => panel.getByRole('progressbar').getAttribute('aria-valuenow')).not.toBe('0');
    // The partial upload exists on the server while it runs.
    const tusHead = async () => (await admin.fetch('/api/tus/in/big.bin', { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).status;
    expect(await tusHead()).toBe(200);
    const dialogs: string[] = [];
    page.once('dialog', (d) => {
      dialogs.push(d.type());
      void d.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    expect(page.isClosed()).toBe(false);

    await panel.getByRole('button', { name: 'Abort uploads' }).click();
    await page.getByRole('dialog', { name: 'Abort uploads' }).getByRole('button', { name: 'Abort uploads' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    // The partial upload was terminated on the server; nothing was written, nothing stays in the listing.
    await expect.poll(tusHead).toBe(404);
    expect(fs.existsSync(path.join(root, 'in/big.bin'))).toBe(false);
    expect(await page.getByRole('option', { name: 'big.bin' }).count()).toBe(0);
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining('Connection aborted')]);
  });

  it('waits through a network drop and then finishes the file from the offset the server kept', async () => {
    const bytes = Buffer.alloc(1024 * KiB);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) % 253;
    const file = path.join(src, 'dropped.bin');
    fs.writeFileSync(file, bytes);
    const page = await browser.newPage();
    browser.allowConsoleError(/ERR_INTERNET_DISCONNECTED/);
    await open(page);
    const network = await throttleUploads(page, 64 * KiB);
    await pick(page, 'File', file);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await expect.poll(async () => Number(await panel.getByRole('progressbar').getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(15);

    await network(64 * KiB, true);
    await panel.getByText('Waiting for the connection: 1').waitFor();
    await panel.getByRole('button', { name: /^Waiting for the connection/ }).click();
    await panel.getByRole('listitem').getByText('Waiting', { exact: true }).waitFor();
    const offset = async () =>
      Number((await admin.fetch('/api/tus/in/dropped.bin', { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).headers.get('Upload-Offset'));
    expect(await offset()).toBeGreaterThan(0);
    // No raw error while the connection is away.
    expect(await page.getByRole('alert').count()).toBe(0);

    const head = page.waitForRequest((r) => r.method() === 'HEAD' && r.url().includes('/api/tus/in/dropped.bin'));
    await network(-1);
    await head;
    await page.getByRole('option', { name: 'dropped.bin' }).waitFor({ timeout: 20_000 });
    expect(fs.readFileSync(path.join(root, 'in/dropped.bin')).equals(bytes)).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('waits when the requests fail while the browser is online, and goes on when they pass again', async () => {
    const bytes = Buffer.alloc(512 * KiB);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 11) % 241;
    const file = path.join(src, 'flaky-net.bin');
    fs.writeFileSync(file, bytes);
    const page = await browser.newPage();
    browser.allowConsoleError(/ERR_FAILED|ERR_CONNECTION/);
    await open(page);
    let down = false;
    let patches = 0;
    await page.route(/\/api\/tus\/in\/flaky-net\.bin/, (route) => {
      if (route.request().method() === 'PATCH' && ++patches === 2) down = true;
      return down ? route.abort('connectionreset') : route.continue();
    });
    await pick(page, 'File', file);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await panel.getByText('Waiting for the connection: 1').waitFor({ timeout: 20_000 });
    expect(await page.getByRole('alert').count()).toBe(0);
    down = false;
    await page.getByRole('option', { name: 'flaky-net.bin' }).waitFor({ timeout: 20_000 });
    expect(fs.readFileSync(path.join(root, 'in/flaky-net.bin')).equals(bytes)).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
  });

  it('cancels one upload on its own; cancelling the last one reads "Connection aborted"', async () => {
    const keep = path.join(src, 'keep.bin');
    const drop = path.join(src, 'drop.bin');
    fs.writeFileSync(keep, Buffer.alloc(512 * KiB, 5));
    fs.writeFileSync(drop, Buffer.alloc(512 * KiB, 6));
    const page = await browser.newPage();
    await open(page);
    const network = await throttleUploads(page, 64 * KiB);
    await pick(page, 'File', [keep, drop]);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await panel.getByRole('button', { name: /^Uploading: / }).click();
    const tusHead = async (name: string) => (await admin.fetch(`/api/tus/in/${name}`, { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).status;
    await expect.poll(() => tusHead('drop.bin')).toBe(200);
    await panel.getByRole('button', { name: 'Cancel drop.bin' }).click();
    await expect.poll(() => panel.getByRole('listitem').allTextContents()).toEqual([expect.stringContaining('keep.bin')]);
    // The DELETE follows the cancel once the PATCH in flight lets go of the upload: on a loaded machine, seconds.
    await expect.poll(() => tusHead('drop.bin'), { timeout: 20_000 }).toBe(404);
    await network(-1);
    await page.getByRole('status').filter({ hasText: 'Upload complete!' }).waitFor({ timeout: 20_000 });
    expect(fs.statSync(path.join(root, 'in/keep.bin')).size).toBe(512 * KiB);
    expect(fs.existsSync(path.join(root, 'in/drop.bin'))).toBe(false);
    expect(await page.getByRole('alert').count()).toBe(0);

    await network(64 * KiB);
    await pick(page, 'File', drop);
    await panel.getByRole('button', { name: /^Uploading: / }).waitFor();
    if ((await panel.getByRole('listitem').count()) === 0) await panel.getByRole('button', { name: /^Uploading: / }).click();
    await panel.getByRole('button', { name: 'Cancel drop.bin' }).click();
    await expect.poll(() => panel.count()).toBe(0);
    await expect.poll(() => page.getByRole('alert').allTextContents()).toEqual([expect.stringContaining('Connection aborted')]);
    // The DELETE follows the cancel once the PATCH in flight lets go of the upload: on a loaded machine, seconds.
    await expect.poll(() => tusHead('drop.bin'), { timeout: 20_000 }).toBe(404);
    expect(fs.existsSync(path.join(root, 'in/drop.bin'))).toBe(false);
  });

  it('pauses (the request in flight stops, the server keeps the offset) and resumes from there', async () => {
    const bytes = Buffer.alloc(1024 * KiB);
    for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
    const file = path.join(src, 'paused.bin');
    fs.writeFileSync(file, bytes);
    const page = await browser.newPage();
    await open(page);
    const throttle = await throttleUploads(page, 64 * KiB);
    const aborted: string[] = [];
    page.on('requestfailed', (r) => {
      if (r.method() === 'PATCH') aborted.push(r.failure()?.errorText ?? '');
    });
    await pick(page, 'File', file);
    const panel = page.getByRole('region', { name: 'Uploads' });
    // Past the first 128 KiB chunk: the server holds part of the file.
    await expect.poll(async () => Number(await panel.getByRole('progressbar').getAttribute('aria-valuenow'))).toBeGreaterThanOrEqual(15);

    await panel.getByRole('button', { name: 'Pause uploads' }).click();
    await panel.getByText('Paused: 1').waitFor();
    await expect.poll(() => aborted).toEqual(['net::ERR_ABORTED']);
    const offset = async () =>
      Number((await admin.fetch('/api/tus/in/paused.bin', { method: 'HEAD', headers: { 'Tus-Resumable': '1.0.0' } })).headers.get('Upload-Offset'));
    const kept = await offset();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(bytes.length);

    // Resuming asks the server for the offset (HEAD) and sends only the rest.
    const head = page.waitForRequest((r) => r.method() === 'HEAD' && r.url().includes('/api/tus/'));
    await throttle(-1);
    await panel.getByRole('button', { name: 'Resume uploads' }).click();
    await head;
    await page.getByRole('option', { name: 'paused.bin' }).waitFor();
    expect(fs.readFileSync(path.join(root, 'in/paused.bin')).equals(bytes)).toBe(true);
    expect(aborted).toEqual(['net::ERR_ABORTED']);
  });

  it('keeps failed uploads in the panel: Retry uploads them again, Close forgets them', async () => {
    const file = path.join(src, 'flaky.txt');
    fs.writeFileSync(file, 'flaky');
    const page = await browser.newPage();
    browser.allowConsoleError(/status of 500/);
    await open(page);
    let failing = true;
    await page.route(/\/api\/tus\/in\/flaky\.txt/, (route) =>
      failing && route.request().method() === 'POST'
        ? route.fulfill({ status: 500, contentType: 'text/plain', body: '500 Internal Server Error: disk on fire' })
        : route.continue(),
    );
    await pick(page, 'File', file);
    const panel = page.getByRole('region', { name: 'Uploads' });
    await panel.getByText('Failed: 1').waitFor();
    expect(await page.getByRole('alert').first().textContent()).toContain('flaky.txt');

    failing = false;
    await panel.getByRole('button', { name: 'Retry failed uploads' }).click();
    await page.getByRole('option', { name: 'flaky.txt' }).waitFor();
    expect(fs.readFileSync(path.join(root, 'in/flaky.txt'), 'utf8')).toBe('flaky');
    await expect.poll(() => panel.count()).toBe(0);

    failing = true;
    await pick(page, 'File', file);
    await page.getByRole('dialog', { name: /./ }).getByRole('button', { name: 'Replace' }).click();
    await panel.getByText('Failed: 1').waitFor();
    await panel.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => panel.count()).toBe(0);
  });

  it('offers no upload without the create permission', async () => {
    const viewer = await createUser(admin, fm, 'viewer', { perm: { create: false, download: true } });
    const page = await browser.newPage();
    await open(page, '/files/in/', viewer.client);
    expect(await page.locator('header').getByRole('button', { name: 'Upload' }).count()).toBe(0);
  });
});
