/**
 * fm's tables on PostgreSQL and their migrations. `fm_schema` holds the version; each step runs
 * once, in order, in one transaction under an advisory lock, so instances starting together
 * migrate once.
 */
import type pg from 'pg';
import { AUDIT_SCHEMA } from '../repos/audit.ts';

/** The channel every change of a record is announced on (payload: the record's namespace). */
export const CHANGES_CHANNEL = 'fm_changes';
/** Advisory lock keys (first half of the pair): fm's, so they never collide with another program's. */
export const LOCK_SPACE = 0x666d; // "fm"
export const MIGRATION_LOCK = 1;

/** Step n brings the schema from version n to n + 1. */
const STEPS: string[] = [
  // 1: the records (keyv's rows: key = "<namespace>:<key>", value = keyv's serialised JSON),
  // announced on every change by a trigger so that any writer (fm, psql, a restore) is seen;
  // and the login and share throttling counters every instance shares.
  `CREATE TABLE fm (key text PRIMARY KEY, value text);
   CREATE FUNCTION fm_announce() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_notify('${CHANGES_CHANNEL}', split_part(COALESCE(NEW.key, OLD.key), ':', 1));
     RETURN NULL;
   END $$;
   CREATE TRIGGER fm_changed AFTER INSERT OR UPDATE OR DELETE ON fm FOR EACH ROW EXECUTE FUNCTION fm_announce();
   CREATE TABLE fm_throttle (
     scope text NOT NULL,
     key text NOT NULL,
     failures integer NOT NULL,
     first_at bigint NOT NULL,
     locked_until bigint NOT NULL,
     PRIMARY KEY (scope, key)
   );`,
  // 2: the audit log's table, made here under the migration lock (it was made on first use, and
  // two processes' CREATE TABLE IF NOT EXISTS at the same moment can fail with a duplicate key).
  AUDIT_SCHEMA.join(';\n'),
];

export const PG_SCHEMA_VERSION = STEPS.length;

/**
 * Brings the database to PG_SCHEMA_VERSION; refuses one made by a newer fm, and one that holds
 * tables but none of fm's (it belongs to another program).
 */
export async function migrate(client: pg.ClientBase, describe: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_SPACE, MIGRATION_LOCK]);
    const tables = await client.query<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema()');
    const names = new Set(tables.rows.map((r) => r.tablename));
    if (names.size > 0 && !names.has('fm_schema')) {
      throw new Error(`${describe} holds tables of another program (no fm_schema table): refusing to change it`);
    }
    await client.query('CREATE TABLE IF NOT EXISTS fm_schema (version integer NOT NULL)');
    const row = await client.query<{ version: number }>('SELECT version FROM fm_schema');
    let version = row.rows[0]?.version ?? 0;
    if (row.rows.length === 0) await client.query('INSERT INTO fm_schema (version) VALUES (0)');
    if (version > PG_SCHEMA_VERSION) {
      throw new Error(`${describe} has schema version ${version}; this fm understands up to ${PG_SCHEMA_VERSION}`);
    }
    for (; version < PG_SCHEMA_VERSION; version++) await client.query(STEPS[version]);
    await client.query('UPDATE fm_schema SET version = $1', [version]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
