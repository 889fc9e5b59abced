/**
 * The Database on PostgreSQL, for several fm instances on one database (docs/scale-out.md).
 * Records go through keyv and @keyv/postgres like SQLite's, in one table `fm`; what keyv cannot
 * express — the change announcements (LISTEN/NOTIFY), the shared throttling counters, advisory
 * locks, portable SQL for other tables — uses `pg` directly, on the same pool.
 */
import fs from 'node:fs';
import path from 'node:path';
import Keyv from 'keyv';
import KeyvPostgres, { type KeyvPostgresOptions } from '@keyv/postgres';
import pg from 'pg';
import { DatabaseError, INSERT_NEW, NAMESPACES, type Database, type Namespace } from '../db.ts';
import { MEMO_NAMESPACES, ReadMemo } from '../read-memo.ts';
import type { Cluster, RawRow } from '../cluster.ts';
import { Listener } from './listener.ts';
import { CHANGES_CHANNEL, migrate } from './schema.ts';
import { FILES_CHANNEL, FilesAnnouncements } from './files-channel.ts';
import { AdvisoryLocks } from './locks.ts';
import { toNumberedPlaceholders } from './placeholders.ts';
import { redactText, redactUrl } from './url.ts';
import { PgThrottleCounts } from './throttle-counts.ts';
import { DatabaseUnavailableError, isConnectionError } from './unavailable.ts';

type Run = <T>(sql: string, values?: unknown[]) => Promise<T[]>;

/** @keyv/postgres on fm's pool: its own module-wide pool would be shared by every Database of the process and ended by any one's close. */
class PooledKeyvPostgres extends KeyvPostgres {
  override async connect() {
    const { run } = this.opts as KeyvPostgresOptions & { run: Run };
    return (sql: string, values?: unknown) => run<never>(sql, values as unknown[] | undefined);
  }
  override async disconnect(): Promise<void> {}
}

export interface PostgresOptions {
  /** fm's own folder on this machine: the caches, and the copy of the shared two-factor key. */
  dataDir: string;
}

/** Portable SQL (`?` placeholders) for fm's own tables beside the records (the audit log's). */
export interface SqlQuery {
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
}

export async function openPostgres(url: string, opts: PostgresOptions): Promise<Database & SqlQuery> {
  const shown = redactUrl(url);
  const clean = (msg: string) => redactText(msg, url);
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000, keepAlive: true });
  // An idle connection the server closed (a restart) must not crash the process; the pool drops it.
  pool.on('error', () => {});
  const run: Run = async <T>(sql: string, values?: unknown[]) => {
    try {
      return (await pool.query(sql, values)).rows as T[];
    } catch (err) {
      if (isConnectionError(err)) throw new DatabaseUnavailableError(clean((err as Error).message));
      throw new DatabaseError(`database ${shown}: ${clean((err as Error).message)}`);
    }
  };

  let listener: Listener | undefined;
  const files = new FilesAnnouncements(run);
  const memo = new ReadMemo();
  const keyvs = new Map<Namespace, Keyv>();
  try {
    const client = await pool.connect().catch((err: Error) => {
      throw new DatabaseError(`cannot reach the database ${shown}: ${clean(err.message || String(err))}`);
    });
    let schema: string;
    try {
      await migrate(client, `database ${shown}`);
      // keyv names its table with a schema; fm's tables are in the role's current one.
      schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0].schema;
      // keyv writes the name into its SQL unquoted in places.
      if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`fm needs a schema with a plain lower-case name, not "${schema}"`);
    } catch (err) {
      throw new DatabaseError(clean((err as Error).message));
    } finally {
      client.release();
    }
    for (const name of NAMESPACES) {
      const store = new PooledKeyvPostgres({ uri: url, schema, table: 'fm', run } as KeyvPostgresOptions);
      // Errors must reach the caller: a database that fails must never look empty.
      store.on('error', () => {});
      const kv = new Keyv({ store, namespace: name, throwOnErrors: true });
      kv.on('error', () => {});
      keyvs.set(name, kv);
      if (MEMO_NAMESPACES.has(name)) memo.wrap(name, kv);
    }
    await shareSecretsKey(keyvs.get('meta')!, run, path.join(opts.dataDir, 'secrets.key'));
    listener = new Listener({
      url,
      channels: [CHANGES_CHANNEL, FILES_CHANNEL],
      onNotice: (channel, payload) => {
        if (channel === FILES_CHANNEL) files.received(payload);
        else if (MEMO_NAMESPACES.has(payload as Namespace)) memo.clear();
      },
      onLost: () => memo.clear(),
    });
    await listener.start();
  } catch (err) {
    await listener?.close();
    await pool.end().catch(() => {});
    if (err instanceof DatabaseError) throw err;
    throw new DatabaseError(`cannot open database ${shown}: ${clean((err as Error).message)}`);
  }
  const live = listener;

  const locks = new AdvisoryLocks(url, clean);
  const cluster: Cluster = {
    throttle: new PgThrottleCounts(run),
    tryLock: (name) => locks.tryLock(name),
    announceFiles: (change) => files.announce(change),
    onFiles: (fn) => files.subscribe(fn),
  };

  return {
    file: shown,
    engine: 'postgres',
    dataDir: opts.dataDir,
    cluster,
    ns(name) {
      return keyvs.get(name)!;
    },
    async entries<T>(name: Namespace) {
      const kv = keyvs.get(name)!;
      const prefix = `${name}:`;
      const load = async () => {
        const rows = await run<RawRow>('SELECT key, value FROM fm WHERE starts_with(key, $1) ORDER BY key', [prefix]);
        const out: Array<[string, T]> = [];
        const now = Date.now();
        for (const row of rows) {
          const data = await kv.deserializeData<T>(row.value);
          if (!data || (typeof data.expires === 'number' && data.expires < now)) continue;
          out.push([row.key.slice(prefix.length), data.value as T]);
        }
        return out;
      };
      return MEMO_NAMESPACES.has(name) ? memo.read(`${name}\0*`, load) : load();
    },
    async insertNew(name, key, value) {
      const data = await keyvs.get(name)!.serializeData({ value, expires: undefined });
      memo.clear();
      try {
        return (await run(toNumberedPlaceholders(INSERT_NEW), [`${name}:${key}`, data])).length === 1;
      } finally {
        memo.clear();
      }
    },
    async refresh() {
      // Announcements clear the memo as they arrive; without them nothing cached can be trusted.
      if (!live.connected) memo.clear();
    },
    sql<T>(text: string, params: unknown[] = []) {
      return run<T>(toNumberedPlaceholders(text), params);
    },
    async rows() {
      return run<RawRow>('SELECT key, value FROM fm ORDER BY key');
    },
    async replaceRows(rows: RawRow[]) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('DELETE FROM fm');
        for (let i = 0; i < rows.length; i += 1000) {
          const batch = rows.slice(i, i + 1000);
          await client.query('INSERT INTO fm (key, value) SELECT * FROM unnest($1::text[], $2::text[])', [batch.map((r) => r.key), batch.map((r) => r.value)]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new DatabaseError(`database ${shown}: ${clean((err as Error).message)}`);
      } finally {
        client.release();
        memo.clear();
      }
    },
    async close() {
      await live.close();
      await locks.close();
      await pool.end().catch(() => {});
    },
  };
}

/**
 * The key that seals two-factor secrets must be the same on every instance: the first instance
 * stores its key (the one in its data folder, or a new one) in the database, and every instance
 * writes the stored one into its data folder, where the two-factor service reads it.
 */
async function shareSecretsKey(meta: Keyv, run: Run, file: string): Promise<void> {
  let stored = await meta.get<string>('secretsKey');
  if (!stored) {
    const { loadOrCreateKey } = await import('../secret-box.ts');
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const mine = loadOrCreateKey(file).toString('base64');
    // Two instances starting together: the first insert wins and both read it back.
    const value = await meta.serializeData({ value: mine, expires: undefined });
    await run('INSERT INTO fm (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', ['meta:secretsKey', value]);
    stored = (await meta.get<string>('secretsKey')) ?? mine;
  }
  const key = Buffer.from(stored, 'base64');
  let current: Buffer | undefined;
  try {
    current = fs.readFileSync(file);
  } catch {
    // none yet
  }
  if (current?.equals(key)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, key, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
