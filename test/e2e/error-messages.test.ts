/** Failed API calls read as translated messages in the user's language, with the server's own text as a detail line. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, createUser, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';

const PERM = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

describe('error messages', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-errors-');
  let fm: FmServer;
  let hans: Client;

  beforeAll(async () => {
    fs.writeFileSync(path.join(root, 'a.txt'), 'a');
    fm = await startFm({ root });
    hans = (await createUser(await adminClient(fm), fm, 'hans', { scope: '/', locale: 'de', perm: PERM })).client;
  });
  afterAll(async () => {
    await fm.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a name taken meanwhile reads in German, the server text below it', async () => {
    browser.allowConsoleError(/409 \(Conflict\)/);
    const page = await browser.newPage();
    await openLoggedIn(page, fm.url, hans.token, '/files/');
    await page.locator('[role=option]').first().waitFor();
    // Created behind the UI's back, so only the server knows the name is taken.
    fs.writeFileSync(path.join(root, 'taken.txt'), 'x');
    await page.getByRole('button', { name: 'Neue Datei' }).click();
    await page.getByRole('dialog', { name: 'Neue Datei' }).getByRole('textbox').fill('taken.txt');
    await page.keyboard.press('Enter');
    const notice = page.locator('.notice-error');
    await notice.waitFor();
    expect(await notice.locator('.notice-message p').allInnerTexts()).toEqual([
      'Ein Element mit diesem Namen existiert bereits.',
      '409 Conflict: a file with that name exists',
    ]);
    expect(fs.readFileSync(path.join(root, 'taken.txt'), 'utf8')).toBe('x');
  });
});
