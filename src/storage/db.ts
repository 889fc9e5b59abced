/**
 * One SQLite file, one Keyv namespace per repository. Repositories are the only
 * code that touches Keyv; everything else goes through them. A `postgres://` location opens
 * the same records on PostgreSQL instead (postgres/open.ts), for several instances.
 */
import fs from 'node:fs';
import path from 'node:path';
import Keyv from 'keyv';
// Before sqlite3: its addon from the known place, without bindings' search (sqlite-addon.ts).
import './sqlite-addon.ts';
// The named export: @keyv/sqlite's CommonJS build (fm.cjs, src/boot/) has no default one.
import { KeyvSqlite } from '@keyv/sqlite';
import sqlite3 from 'sqlite3';
import { FmError } from '../errors.ts';
import { MEMO_NAMESPACES, ReadMemo } from './read-memo.ts';
import type { Cluster, RawRow } from './cluster.ts';

export const SCHEMA_VERSION = 1;
export const NAMESPACES = ['meta', 'settings', 'users', 'sessions', 'shares', 'tokens', 'davprops', 'totp'] as const;
export type Namespace = (typeof NAMESPACES)[number];

export interface Database {
  /** Absolute path of the SQLite file. */
  readonly file: string;
  ns(name: Namespace): Keyv;
  /** Every [key, value] of a namespace, read in one query (safe to mutate afterwards). */
  entries<T>(name: Namespace): Promise<Array<[string, T]>>;
  /**
   * Stores `value` under `key` unless the key already exists, in one statement; true when it
   * stored it. Two connections (fm and the CLI, two instances) claiming the same key cannot both
   * win, which a read followed by a write cannot promise: a username, a user id.
   */
  insertNew(name: Namespace, key: string, value: unknown): Promise<boolean>;
  /**
   * Drops cached reads if another connection (the CLI, another fm) changed the database since
   * the last call. The server calls it once per request; reads between calls come from memory.
   */
  refresh(): Promise<void>;
  /**
   * Runs one SQL statement with `?` placeholders and answers its rows (none for writes). For
   * tables outside the key-value store (the audit log); portable SQL only, so that the
   * PostgreSQL backend runs the same text.
   */
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
  /** 'sqlite' (one instance) or 'postgres' (one or several instances on one database). */
  readonly engine: 'sqlite' | 'postgres';
  /** fm's own folder on this machine: the two-factor key, the caches (the SQLite file's folder). */
  readonly dataDir: string;
  /** What instances share beyond the records; only on PostgreSQL. */
  readonly cluster?: Cluster;
  /** Every stored row as it is (namespaced key, serialised value): `fm db copy`. */
  rows(): Promise<RawRow[]>;
  /** Replaces every stored row, in one transaction. */
  replaceRows(rows: RawRow[]): Promise<void>;
}

export class DatabaseError extends FmError {
  constructor(message: string) {
    super(500, 'database', message);
  }
}

export interface OpenOptions {
  /** fm's folder on this machine for a PostgreSQL database (default: the data folder). */
  dataDir?: string;
}

/**
 * Opens the database at `location`: a `postgres://` URL, or a SQLite file path.
 */
export async function openDatabase(location: string, opts: OpenOptions = {}): Promise<Database> {
  const { isPostgresUrl } = await import('./postgres/url.ts');
  if (!isPostgresUrl(location)) return openSqlite(location);
  const [{ openPostgres }, { dataDir }] = await Promise.all([import('./postgres/open.ts'), import('../paths.ts')]);
  return openPostgres(location, { dataDir: opts.dataDir ?? dataDir() });
}

/**
 * Opens (creating if needed) the database file. Fails with a clear DatabaseError when the
 * file is not a SQLite database, is read-only, or its schema is newer than this fm.
 */
async function openSqlite(file: string): Promise<Database> {
  const abs = path.resolve(file);
  makeDataFolder(path.dirname(abs));
  if (fs.existsSync(abs)) {
    const st = fs.statSync(abs);
    if (!st.isFile()) throw new DatabaseError(`database ${abs} is not a file`);
    // The mode bits are checked too: root passes access(), but a file made read-only on
    // purpose must not be written.
    let writable = (st.mode & 0o222) !== 0;
    try {
      fs.accessSync(abs, fs.constants.R_OK | fs.constants.W_OK);
    } catch {
      writable = false;
    }
    if (!writable) throw new DatabaseError(`database ${abs} is read-only: fm needs to read and write it`);
    if (st.size > 0) {
      const head = Buffer.alloc(16);
      const fd = fs.openSync(abs, 'r');
      try {
        fs.readSync(fd, head, 0, 16, 0);
      } finally {
        fs.closeSync(fd);
      }
      if (head.toString('latin1') !== 'SQLite format 3\0') throw new DatabaseError(`${abs} is not an fm database (not a SQLite file)`);
      await assertFmTables(abs);
    }
  } else {
    // Created by us, owner-only, before SQLite opens it: it makes -wal and -shm with the same mode.
    fs.closeSync(fs.openSync(abs, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600));
  }
  ownerOnly(abs);

  // One connection for every namespace: each of the eight used to open its own, and the opens
  // ran one after another (the first switches the file to WAL, which needs it to itself).
  const store = new KeyvSqlite({ uri: `sqlite://${abs}`, table: 'fm', busyTimeout: 10_000, iterationLimit: 1_000_000_000 });
  // Errors must reach the caller: a database that fails must never look empty.
  store.on('error', () => {});
  // Each namespace's Keyv listens to the store's errors as well (through its view).
  store.setMaxListeners(NAMESPACES.length + 1);
  const keyvs = new Map<Namespace, Keyv>();
  try {
    // Waits for the connection and its table.
    await store.query('PRAGMA journal_mode=WAL');
    for (const name of NAMESPACES) {
      const kv = new Keyv({ store: namespaceView(store, name), namespace: name, throwOnErrors: true });
      kv.on('error', () => {});
      keyvs.set(name, kv);
    }
    const meta = keyvs.get('meta')!;
    const version = (await meta.get<number>('schemaVersion')) ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new DatabaseError(`database ${abs} has schema version ${version}; this fm understands up to ${SCHEMA_VERSION}`);
    }
    // A write at open proves the file is writable before anything else depends on it.
    await meta.set('schemaVersion', SCHEMA_VERSION);
    for (const companion of [`${abs}-wal`, `${abs}-shm`]) ownerOnly(companion);
  } catch (err) {
    await store.disconnect().catch(() => {});
    if (err instanceof DatabaseError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new DatabaseError(`cannot open database ${abs}: ${msg}`);
  }

  const memo = new ReadMemo();
  for (const name of MEMO_NAMESPACES) memo.wrap(name, keyvs.get(name)!);
  let dataVersion = -1;
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  // data_version changes whenever another connection (the CLI, another fm) commits; this
  // process's own writes clear the memo themselves (ReadMemo.wrap).
  const checkVersion = async () => {
    const rows = (await store.query('PRAGMA data_version')) as Array<{ data_version: number }>;
    const v = rows[0]?.data_version ?? -1;
    if (v !== dataVersion) {
      dataVersion = v;
      memo.clear();
    }
  };
  const startCheck = (): Promise<void> => {
    const check: Promise<void> = checkVersion().finally(() => {
      if (running === check) running = undefined;
    });
    running = check;
    return check;
  };

  return {
    file: abs,
    engine: 'sqlite',
    dataDir: path.dirname(abs),
    async rows() {
      return (await store.query('SELECT key, value FROM fm ORDER BY key')) as RawRow[];
    },
    async replaceRows(rows: RawRow[]) {
      // On the one connection every namespace shares: `fm db copy` runs nothing else meanwhile.
      try {
        await store.query('BEGIN IMMEDIATE');
        await store.query('DELETE FROM fm');
        for (const row of rows) await store.query('INSERT INTO fm (key, value) VALUES (?, ?)', row.key, row.value);
        await store.query('COMMIT');
      } catch (err) {
        await store.query('ROLLBACK').catch(() => {});
        throw new DatabaseError(`database ${abs}: ${(err as Error).message}`);
      } finally {
        memo.clear();
      }
    },
    ns(name) {
      return keyvs.get(name)!;
    },
    async entries<T>(name: Namespace) {
      const kv = keyvs.get(name)!;
      const load = async () => {
        const out: Array<[string, T]> = [];
        if (!kv.iterator) return out;
        // keyv's iterator deletes expired rows as it goes; collect everything first.
        for await (const [key, value] of kv.iterator(undefined)) out.push([key as string, value as T]);
        return out;
      };
      return MEMO_NAMESPACES.has(name) ? memo.read(`${name}\0*`, load) : load();
    },
    async insertNew(name, key, value) {
      const data = await keyvs.get(name)!.serializeData({ value, expires: undefined });
      memo.clear();
      try {
        const rows = (await store.query(INSERT_NEW, `${name}:${key}`, data)) as unknown[];
        return rows.length === 1;
      } finally {
        memo.clear();
      }
    },
    refresh() {
      // A caller that arrives while a check runs waits for the next one, which starts after it
      // arrived, so it sees every commit made before it; all callers arriving meanwhile share
      // that next check (one query per round trip under load instead of one per request).
      if (!running) return startCheck();
      queued ??= running
        .catch(() => {})
        .then(() => {
          queued = undefined;
          return startCheck();
        });
      return queued;
    },
    async sql<T>(text: string, params: unknown[] = []) {
      // KeyvSqlite's query is sqlite3's all(): an array binds the placeholders in order.
      return (await store.query(text, params)) as T[];
    },
    async close() {
      // Fold the WAL back into the main file first, so the file on disk is complete even if
      // another process still holds the database open.
      await store.query('PRAGMA wal_checkpoint(TRUNCATE)').catch(() => {});
      await store.disconnect().catch(() => {});
    },
  };
}

/**
 * One namespace's side of the shared store. Keyv writes its namespace on the store it is given,
 * and KeyvSqlite's clear() deletes the rows of `this.namespace` (Keyv's iterator passes it too), so
 * each Keyv needs an object of its own; everything else (the connection, its queries, the table) is
 * the shared store's, reached through the prototype.
 */
function namespaceView(store: KeyvSqlite, name: Namespace): KeyvSqlite {
  return Object.assign(Object.create(store) as KeyvSqlite, { namespace: name });
}

/**
 * The database's folder: one fm creates is 0700 whatever the umask (it holds password hashes
 * and the signing key); parents it creates get the usual mode, and an existing folder keeps
 * the mode its owner chose (a service may need 0750 for a backup group).
 */
function makeDataFolder(dir: string): void {
  if (fs.existsSync(dir)) return;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  fs.chmodSync(dir, 0o700);
}

/**
 * Takes group and other permissions off a database file, if it exists (umask-proof, also for
 * old files). A file fm may write but does not own (shared through a group) cannot be changed
 * and is left as it is.
 */
function ownerOnly(file: string): void {
  try {
    const mode = fs.statSync(file).mode & 0o777;
    if (mode & 0o077) fs.chmodSync(file, mode & 0o700);
  } catch {
    // missing, or not ours to change
  }
}

/** Portable SQL (SQLite 3.35+, PostgreSQL): the key claimed answers one row, a taken key none. */
export const INSERT_NEW = 'INSERT INTO fm (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING RETURNING key';

/** Refuses a SQLite file that holds other tables but not fm's: it belongs to something else. */
async function assertFmTables(file: string): Promise<void> {
  const tables = await new Promise<string[]>((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (openErr) => {
      if (openErr) return reject(openErr);
      db.all("SELECT name FROM sqlite_master WHERE type = 'table'", (err, rows: Array<{ name: string }>) => {
        db.close();
        if (err) reject(err);
        else resolve(rows.map((r) => r.name));
      });
    });
  }).catch((err: Error) => {
    throw new DatabaseError(`cannot read database ${file}: ${err.message}`);
  });
  if (tables.length > 0 && !tables.includes('fm')) {
    throw new DatabaseError(`${file} is a SQLite database of another program (no fm table): refusing to change it`);
  }
}
