/**
 * The audit log's table: append-only rows, read with filters and pages, pruned by age. Plain
 * SQL through `Database.sql` (not a Keyv namespace: filters, paging and pruning need SQL), in
 * the subset SQLite and PostgreSQL share: BIGINT/INTEGER/TEXT columns, `?` placeholders,
 * multi-row INSERT, LIMIT/OFFSET, substr().
 */
import type { AuditAction } from '../../api/audit.ts';
import type { Database } from '../db.ts';

/** One stored entry. `time` is in microseconds since the epoch, unique per process (the order). */
export interface AuditRecord {
  time: number;
  actorId: number | null;
  actor: string | null;
  share: string | null;
  address: string | null;
  action: AuditAction;
  path: string | null;
  dest: string | null;
  bytes: number | null;
  status: number | null;
  detail: string | null;
  duration: number | null;
}

export interface AuditFilter {
  /** Milliseconds since the epoch, inclusive. */
  since?: number;
  /** Milliseconds since the epoch, exclusive. */
  until?: number;
  /** The actor's name as recorded. */
  actor?: string;
  /** The actor's user id (a user's own activity, whatever names they had). */
  actorId?: number;
  action?: AuditAction;
  /** Entries whose path or destination is this path or lies under it. */
  path?: string;
}

const COLUMNS = ['time', 'actor_id', 'actor', 'share', 'address', 'action', 'path', 'dest', 'bytes', 'status', 'detail', 'duration'] as const;
/** Rows per INSERT: 12 placeholders each stays far below every engine's limit. */
const ROWS_PER_INSERT = 50;

/** The table and its indexes (also step 2 of the PostgreSQL migrations, which run under a lock). */
export const AUDIT_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS audit (
    time BIGINT NOT NULL, actor_id INTEGER, actor TEXT, share TEXT, address TEXT, action TEXT NOT NULL,
    path TEXT, dest TEXT, bytes BIGINT, status INTEGER, detail TEXT, duration INTEGER)`,
  'CREATE INDEX IF NOT EXISTS audit_time ON audit (time)',
  'CREATE INDEX IF NOT EXISTS audit_actor ON audit (actor, time)',
  'CREATE INDEX IF NOT EXISTS audit_actor_id ON audit (actor_id, time)',
  'CREATE INDEX IF NOT EXISTS audit_action ON audit (action, time)',
];

interface Row {
  time: number | string;
  actor_id: number | string | null;
  actor: string | null;
  share: string | null;
  address: string | null;
  action: string;
  path: string | null;
  dest: string | null;
  bytes: number | string | null;
  status: number | null;
  detail: string | null;
  duration: number | null;
}

/** PostgreSQL answers BIGINT as a string; SQLite as a number. */
const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export class AuditRepo {
  private ready: Promise<void> | undefined;

  constructor(private readonly db: Database) {}

  /**
   * Creates the table and its indexes once per process (SQLite; on PostgreSQL the migrations made
   * them already, under a lock: two processes' CREATE TABLE IF NOT EXISTS at once can fail there).
   */
  private ensure(): Promise<void> {
    this.ready ??= (async () => {
      for (const statement of AUDIT_SCHEMA) await this.db.sql(statement);
    })().catch((err) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /** Appends entries, ROWS_PER_INSERT to a statement (each statement is atomic). */
  async append(records: AuditRecord[]): Promise<void> {
    await this.ensure();
    for (let i = 0; i < records.length; i += ROWS_PER_INSERT) {
      const chunk = records.slice(i, i + ROWS_PER_INSERT);
      const row = `(${COLUMNS.map(() => '?').join(', ')})`;
      const params = chunk.flatMap((r) => [r.time, r.actorId, r.actor, r.share, r.address, r.action, r.path, r.dest, r.bytes, r.status, r.detail, r.duration]);
      await this.db.sql(`INSERT INTO audit (${COLUMNS.join(', ')}) VALUES ${chunk.map(() => row).join(', ')}`, params);
    }
  }

  /** A page of the entries that match, newest first, and how many match in all. */
  async find(filter: AuditFilter, page: { limit: number; offset: number }): Promise<{ records: AuditRecord[]; total: number }> {
    await this.ensure();
    const { where, params } = whereClause(filter);
    const rows = await this.db.sql<Row>(`SELECT * FROM audit${where} ORDER BY time DESC LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
    const counted = await this.db.sql<{ n: number | string }>(`SELECT COUNT(*) AS n FROM audit${where}`, params);
    return { records: rows.map(toRecord), total: Number(counted[0]?.n ?? 0) };
  }

  /** How many entries there are (fm db copy: a target must hold none without --force). */
  async count(): Promise<number> {
    await this.ensure();
    const counted = await this.db.sql<{ n: number | string }>('SELECT COUNT(*) AS n FROM audit');
    return Number(counted[0]?.n ?? 0);
  }

  /** Every entry, oldest first, `size` at a time (fm db copy). */
  async *pages(size: number): AsyncGenerator<AuditRecord[]> {
    await this.ensure();
    for (let offset = 0; ; offset += size) {
      const rows = await this.db.sql<Row>('SELECT * FROM audit ORDER BY time LIMIT ? OFFSET ?', [size, offset]);
      if (rows.length) yield rows.map(toRecord);
      if (rows.length < size) return;
    }
  }

  /** Removes every entry (fm db copy --force). */
  async clear(): Promise<void> {
    await this.ensure();
    await this.db.sql('DELETE FROM audit');
  }

  /** Removes the entries older than `before` (milliseconds since the epoch). */
  async pruneBefore(before: number): Promise<void> {
    await this.ensure();
    await this.db.sql('DELETE FROM audit WHERE time < ?', [before * 1000]);
  }
}

function whereClause(f: AuditFilter): { where: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (f.since !== undefined) {
    terms.push('time >= ?');
    params.push(f.since * 1000);
  }
  if (f.until !== undefined) {
    terms.push('time < ?');
    params.push(f.until * 1000);
  }
  if (f.actor !== undefined) {
    terms.push('actor = ?');
    params.push(f.actor);
  }
  if (f.actorId !== undefined) {
    terms.push('actor_id = ?');
    params.push(f.actorId);
  }
  if (f.action !== undefined) {
    terms.push('action = ?');
    params.push(f.action);
  }
  if (f.path !== undefined && f.path !== '/') {
    // substr, not LIKE: exact and case-sensitive in both engines, and no wildcards to escape.
    // Both count characters (code points), as the spread below does.
    const under = `${f.path}/`;
    const length = [...under].length;
    terms.push('(path = ? OR substr(path, 1, ?) = ? OR dest = ? OR substr(dest, 1, ?) = ?)');
    params.push(f.path, length, under, f.path, length, under);
  }
  return { where: terms.length ? ` WHERE ${terms.join(' AND ')}` : '', params };
}

function toRecord(r: Row): AuditRecord {
  return {
    time: Number(r.time),
    actorId: num(r.actor_id),
    actor: r.actor,
    share: r.share,
    address: r.address,
    action: r.action as AuditAction,
    path: r.path,
    dest: r.dest,
    bytes: num(r.bytes),
    status: r.status,
    detail: r.detail,
    duration: r.duration,
  };
}
