/**
 * The audit log when the database's disk is full (for real: a small tmpfs holds it, then a filler
 * file takes the rest). Downloads go on (the entries they make are counted as lost, logged, and
 * shown by GET /api/audit/status); once space is back, entries are written again. (Writes of
 * files need the data folder's disk for their journal, so they answer 507 there anyway.) Mounting
 * needs root (CI runs as root); elsewhere the file is skipped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditStatus } from '../../src/api/audit.ts';
import { adminClient, tempDir, startFm, type Client, type FmServer } from '../helpers/server.ts';
import { fillUp, mountTmpfs, type Tmpfs } from '../helpers/tmpfs.ts';

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)('audit log on a full database disk (needs root to mount a tmpfs; skipped otherwise)', () => {
  let home: string;
  let disk: Tmpfs;
  let fm: FmServer;
  let admin: Client;
  let filler: string;
  const longName = `${'n'.repeat(200)}.txt`;

  beforeAll(async () => {
    home = tempDir();
    disk = mountTmpfs(path.join(home, 'db'), '4m');
    fm = await startFm({ home, args: ['--database', path.join(disk.dir, 'fm.db'), '--cache-dir', path.join(home, 'cache'), '--no-index'] });
    admin = await adminClient(fm);
    fs.writeFileSync(path.join(fm.root, longName), 'x'.repeat(100));
    await admin.json('/api/audit'); // the table exists before the disk fills
    filler = fillUp(disk.dir);
  });
  afterAll(async () => {
    await fm?.stop();
    disk?.unmount();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('downloads succeed while their entries cannot be written; the loss is counted and logged', async () => {
    for (let i = 0; i < 300; i++) {
      const res = await admin.fetch(`/api/raw/${longName}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('x'.repeat(100));
    }
    // Reading the log writes the queue first; the read itself still works.
    await admin.fetch('/api/audit');
    const status = await admin.json<AuditStatus>('/api/audit/status');
    expect(status.lost).toBeGreaterThan(0);
    expect(fm.output()).toMatch(/error: audit log: \d+ entr(y|ies) not written \(.*(full|disk|space).*\); \d+ lost since start/i);
  });

  it('writes entries again once there is space, and keeps the count', async () => {
    const { lost } = await admin.json<AuditStatus>('/api/audit/status');
    fs.rmSync(filler);
    const res = await admin.fetch('/api/resources/after.txt', { method: 'POST', body: 'back' });
    expect(res.status).toBe(200);
    const [latest] = await admin.json<AuditEntry[]>('/api/audit?limit=1');
    expect(latest).toMatchObject({ action: 'create', path: '/after.txt', status: 200 });
    expect((await admin.json<AuditStatus>('/api/audit/status')).lost).toBe(lost);
  });
});
