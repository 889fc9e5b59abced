/**
 * MODE (GHSA-jj2r-455p-5gvf): the database holds password hashes and the token signing key.
 * fm creates its data folder 0700 and the database file (and its -wal/-shm companions) 0600,
 * whatever the umask; an existing database file is tightened to 0600, an existing folder keeps
 * the mode its owner gave it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFm, tempDir } from '../helpers/server.ts';
import { runFm } from '../helpers/cli.ts';

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;
const dbFiles = (db: string) => [db, `${db}-wal`, `${db}-shm`].filter((f) => fs.existsSync(f));

let previousUmask: number;
beforeAll(() => {
  // The most permissive umask: whatever fm creates is as open as its code asks for.
  previousUmask = process.umask(0);
});
afterAll(() => {
  process.umask(previousUmask);
});

describe('MODE database files created by fm serve', () => {
  it('a new data folder is 0700 and the database, -wal and -shm are 0600', async () => {
    const home = tempDir();
    const dataDir = path.join(home, 'new', 'data');
    const db = path.join(dataDir, 'fm.db');
    const fm = await startFm({ home, args: ['--database', db] });
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      const files = dbFiles(db);
      expect(files).toContain(`${db}-wal`);
      for (const f of files) expect(modeOf(f), f).toBe(0o600);
    } finally {
      await fm.stop();
    }
    for (const f of dbFiles(db)) expect(modeOf(f), f).toBe(0o600);
  });

  it('the default data folder ($XDG_DATA_HOME/fm) is 0700 too', async () => {
    const home = tempDir();
    const xdg = path.join(home, 'xdg');
    const root = path.join(home, 'root');
    fs.mkdirSync(root);
    const r = await runFm(['config', 'init'], { env: { XDG_DATA_HOME: xdg, FM_DATABASE: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(path.join(xdg, 'fm'))).toBe(0o700);
    expect(modeOf(path.join(xdg, 'fm', 'fm.db'))).toBe(0o600);
  });

  it('an existing folder keeps its mode; an existing 0644 database is tightened to 0600', async () => {
    const home = tempDir();
    fs.chmodSync(home, 0o755);
    const first = await startFm({ home });
    await first.stop();
    const db = path.join(home, 'fm.db');
    for (const f of dbFiles(db)) fs.chmodSync(f, 0o644);
    const again = await startFm({ home });
    try {
      expect(modeOf(home)).toBe(0o755);
      for (const f of dbFiles(db)) expect(modeOf(f), f).toBe(0o600);
    } finally {
      await again.stop();
    }
  });

  it('fm config init creates a 0600 database as well', async () => {
    const db = path.join(tempDir(), 'made-by-cli', 'fm.db');
    const r = await runFm(['config', 'init', '--database', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(modeOf(path.dirname(db))).toBe(0o700);
    for (const f of dbFiles(db)) expect(modeOf(f), f).toBe(0o600);
  });
});
