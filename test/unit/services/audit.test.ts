/**
 * The audit log service over a real SQLite file: batched writes, the timer flush, order, the
 * retention pruning, and a database that refuses writes (entries counted as lost, never an error).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { auditCsv, csvField, parseAuditTime, type AuditEntry } from '../../../src/api/audit.ts';
import { AuditLog } from '../../../src/services/audit.ts';
import { openDatabase, type Database } from '../../../src/storage/db.ts';
import { AuditRepo, type AuditRecord } from '../../../src/storage/repos/audit.ts';

let tmp: string;
let db: Database;
let repo: AuditRepo;
const DAY = 86_400;

function logger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'fm-audit-'));
  db = await openDatabase(path.join(tmp, 'fm.db'));
  repo = new AuditRepo(db);
});

afterEach(async () => {
  await db.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('AuditLog', () => {
  it('writes in batches, keeps the order, and a reader sees every entry recorded before it asked', async () => {
    const append = vi.spyOn(repo, 'append');
    const audit = new AuditLog(repo, { retention: async () => 90 * DAY, log: logger(), batch: 500, flushMs: 60_000 });
    for (let i = 0; i < 1200; i++) audit.record({ action: 'download', actor: 'alice', path: `/f${i}` });
    const { entries, total } = await audit.find({}, { limit: 10_000, offset: 0 });
    expect(total).toBe(1200);
    expect(append).toHaveBeenCalledTimes(3);
    expect(entries[0].path).toBe('/f1199');
    expect(entries.at(-1)!.path).toBe('/f0');
  });

  it('keeps a very long actor name or detail short', async () => {
    const audit = new AuditLog(repo, { retention: async () => 90 * DAY, log: logger() });
    audit.record({ action: 'login-failed', actor: 'x'.repeat(60_000), detail: 'y'.repeat(60_000) });
    const [e] = (await audit.find({}, { limit: 1, offset: 0 })).entries;
    expect(e.actor).toBe(`${'x'.repeat(256)}…`);
    expect(e.detail).toBe(`${'y'.repeat(4096)}…`);
  });

  it('flushes on its timer without being asked', async () => {
    const audit = new AuditLog(repo, { retention: async () => 90 * DAY, log: logger(), flushMs: 20 });
    audit.record({ action: 'login', actor: 'bob', address: '10.0.0.1', status: 200 });
    await vi.waitFor(async () => expect((await repo.find({}, { limit: 10, offset: 0 })).total).toBe(1), { timeout: 5000, interval: 20 });
  });

  it('a database that refuses writes loses the batch, counts and logs it, and never throws; later writes go through', async () => {
    const log = logger();
    const audit = new AuditLog(repo, { retention: async () => 90 * DAY, log, flushMs: 60_000 });
    const append = vi.spyOn(repo, 'append').mockRejectedValueOnce(Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'SQLITE_FULL' }));
    for (let i = 0; i < 3; i++) expect(() => audit.record({ action: 'delete', path: `/x${i}` })).not.toThrow();
    await expect(audit.flush()).resolves.toBeUndefined();
    expect(audit.lost).toBe(3);
    expect(log.error).toHaveBeenCalledWith(expect.stringMatching(/3 entries not written \(SQLITE_FULL.*\); 3 lost since start/));
    expect((await audit.status()).lost).toBe(3);
    append.mockRestore();
    audit.record({ action: 'delete', path: '/after' });
    const { entries } = await audit.find({}, { limit: 10, offset: 0 });
    expect(entries.map((e) => e.path)).toEqual(['/after']);
    expect(audit.lost).toBe(3);
  });

  it('drops and counts entries beyond the pending cap while the database hangs', async () => {
    const audit = new AuditLog(repo, { retention: async () => 90 * DAY, log: logger(), flushMs: 60_000, batch: 1000, maxPending: 5 });
    for (let i = 0; i < 8; i++) audit.record({ action: 'preview', path: `/p${i}` });
    expect(audit.lost).toBe(3);
    expect((await audit.find({}, { limit: 10, offset: 0 })).total).toBe(5);
  });

  it('prunes entries older than the retention', async () => {
    const now = Date.now();
    const at = (daysAgo: number): AuditRecord => ({
      time: (now - daysAgo * DAY * 1000) * 1000,
      actorId: null,
      actor: 'old',
      share: null,
      address: null,
      action: 'login',
      path: `/${daysAgo}`,
      dest: null,
      bytes: null,
      status: 200,
      detail: null,
      duration: null,
    });
    await repo.append([at(100), at(31), at(29)]);
    const audit = new AuditLog(repo, { retention: async () => 30 * DAY, log: logger() });
    await audit.flush();
    const { entries } = await audit.find({}, { limit: 10, offset: 0 });
    expect(entries.map((e) => e.path)).toEqual(['/29']);
  });
});

describe('the audit contract', () => {
  it('reads since/until as a duration back from now or an ISO date, and nothing else', () => {
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(parseAuditTime('24h', now)).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(parseAuditTime('7d', now)).toBe(now - 7 * DAY * 1000);
    expect(parseAuditTime('30m', now)).toBe(now - 30 * 60_000);
    expect(parseAuditTime('2025-12-31T12:00:00Z', now)).toBe(Date.parse('2025-12-31T12:00:00Z'));
    for (const bad of ['yesterday', '24', '1w', '', '2025-13-45']) expect(parseAuditTime(bad, now), bad).toBeUndefined();
  });

  it('quotes CSV fields per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField(null)).toBe('');
    expect(csvField(0)).toBe('0');
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    for (const lead of ['+', '-', '@', '\t']) expect(csvField(`${lead}x`)).toBe(`'${lead}x`);
    expect(csvField('/a=b')).toBe('/a=b');
    const e: AuditEntry = {
      time: '2026-01-01T00:00:00.000Z',
      actor: 'a',
      share: null,
      address: '::1',
      action: 'copy',
      path: '/x,y',
      dest: '/z',
      bytes: 3,
      status: 200,
      detail: null,
      duration: null,
    };
    expect(auditCsv([e])).toBe(
      'time,actor,share,address,action,path,dest,bytes,status,detail,duration\r\n2026-01-01T00:00:00.000Z,a,,::1,copy,"/x,y",/z,3,200,,\r\n',
    );
  });
});
