/**
 * While PostgreSQL is unreachable the UI says so in the user's language (the 503's machine code
 * database_unavailable), and the same action works again once the database is back (issue 21).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, startFm, tempDir, type Client, type FmServer } from '../helpers/server.ts';
import { openLoggedIn, useBrowser } from '../helpers/browser.ts';
import { axeViolations } from '../helpers/axe.ts';
import { postgresBin, startCluster, type PgCluster } from '../helpers/postgres.ts';

describe.skipIf(!postgresBin())('database unavailable', () => {
  const browser = useBrowser();
  const root = tempDir('fm-e2e-pg-');
  let cluster: PgCluster;
  let fm: FmServer;
  let admin: Client;

  beforeAll(async () => {
    fs.mkdirSync(path.join(root, 'later'));
    fs.writeFileSync(path.join(root, 'later', 'inside.txt'), 'x');
    cluster = await startCluster();
    fm = await startFm({ root, args: ['--database', await cluster.createDatabase()] });
    admin = await adminClient(fm);
  });
  afterAll(async () => {
    await fm?.stop();
    await cluster?.destroy();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('a folder opened while the database is down explains why, and opens once it is back', async () => {
    browser.allowConsoleError(/503 \(Service Unavailable\)/);
    const page = await browser.newPage({ width: 390, height: 800 });
    await openLoggedIn(page, fm.url, admin.token, '/files/');
    await page.locator('[role=option]', { hasText: 'later' }).waitFor();
    await cluster.stop();
    try {
      await page.locator('[role=option]', { hasText: 'later' }).dblclick();
      await page.getByRole('alert').getByText('The server cannot reach its database. Try again in a moment.').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      // A reload meanwhile gets the page (not a bare 503), which says the same.
      const reloaded = await page.reload();
      expect(reloaded?.status()).toBe(200);
      await page.getByText('The server cannot reach its database. Try again in a moment.').first().waitFor();
      expect(await axeViolations(page)).toEqual([]);
      if (process.env.FM_SHOTS) await page.screenshot({ path: path.join(process.env.FM_SHOTS, 'database-unavailable-reload.png') });
    } finally {
      await cluster.start();
    }
    await expect
      .poll(
        async () => {
          await page.goto(`${fm.url}/files/later/`);
          return page.locator('[role=option]', { hasText: 'inside.txt' }).count();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(1);
  }, 60_000);
});
