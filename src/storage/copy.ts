/**
 * `fm db copy`: every record of one database into another, across engines, as stored (keyv's
 * serialised rows, expiry included), with the key that seals two-factor secrets, so that an
 * instance moves between SQLite and PostgreSQL without losing a session, a link or a second factor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FmError } from '../errors.ts';
import type { Database } from './db.ts';
import type { RawRow } from './cluster.ts';
import { AuditRepo } from './repos/audit.ts';

/** Audit log entries read and written at a time. */
const AUDIT_PAGE = 5000;

export class CopyRefusedError extends FmError {
  constructor(message: string) {
    super(409, 'conflict', message);
  }
}

/** Rows each engine keeps for itself: the schema version (SQLite's record; PostgreSQL has its table) and the sealing key (below). */
const ENGINE_OWN = new Set(['meta:schemaVersion', 'meta:secretsKey']);

export interface CopyResult {
  records: number;
  /** Audit log entries copied. */
  audit: number;
  /** Whether the two-factor key went along. */
  key: boolean;
}

/** Whether `location` names a database that exists (a URL is checked when it is opened). */
export function databaseExists(location: string, isUrl: boolean): boolean {
  return isUrl || fs.existsSync(location);
}

export async function copyDatabase(from: Database, to: Database, opts: { force?: boolean } = {}): Promise<CopyResult> {
  const existing = (await to.rows()).filter((r) => !ENGINE_OWN.has(r.key));
  const fromAudit = new AuditRepo(from);
  const toAudit = new AuditRepo(to);
  const existingAudit = await toAudit.count();
  if ((existing.length > 0 || existingAudit > 0) && !opts.force) {
    const what = existing.length > 0 ? `${existing.length} record(s)` : `${existingAudit} audit log entries`;
    throw new CopyRefusedError(`${to.file} already holds ${what}: give --force to replace them`);
  }
  const rows: RawRow[] = (await from.rows()).filter((r) => !ENGINE_OWN.has(r.key));
  const kept = (await to.rows()).filter((r) => ENGINE_OWN.has(r.key));
  await to.replaceRows([...kept, ...rows]);
  // The audit log is a table of its own (repos/audit.ts), copied as it is, in pages.
  await toAudit.clear();
  let audit = 0;
  for await (const page of fromAudit.pages(AUDIT_PAGE)) {
    await toAudit.append(page);
    audit += page.length;
  }
  const key = await readSecretsKey(from);
  if (key) await writeSecretsKey(to, key);
  return { records: rows.length, audit, key: Boolean(key) };
}

/** The two-factor key: a row on PostgreSQL (shared by the instances), a file beside a SQLite database. */
async function readSecretsKey(db: Database): Promise<Buffer | undefined> {
  if (db.engine === 'postgres') {
    const stored = await db.ns('meta').get<string>('secretsKey');
    return stored ? Buffer.from(stored, 'base64') : undefined;
  }
  try {
    return fs.readFileSync(path.join(db.dataDir, 'secrets.key'));
  } catch {
    return undefined;
  }
}

async function writeSecretsKey(db: Database, key: Buffer): Promise<void> {
  if (db.engine === 'postgres') {
    await db.ns('meta').set('secretsKey', key.toString('base64'));
    return;
  }
  const file = path.join(db.dataDir, 'secrets.key');
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, key, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
