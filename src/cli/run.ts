/**
 * The action wrapper: actions throw, never exit. FmErrors and usage errors become one line
 * on stderr and an exit code (2 usage, 1 failure).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { FmError, UsageError } from '../errors.ts';
import type { Database } from '../storage/db.ts';
import { defaultDatabasePath } from '../paths.ts';
import { isPostgresUrl } from '../storage/postgres/url.ts';
import type { Services } from '../services/index.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import { recordCliChange } from './audit.ts';

export interface GlobalOptions {
  database?: string;
  config?: string;
  json?: boolean;
}

export class ExitError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The database: --database, then FM_DATABASE (commander reads the env), then the data folder's
 * file. A `postgres://` URL is taken as it is; a file path is made absolute.
 */
export function databasePath(cmd: Command): string {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const location = opts.database || defaultDatabasePath();
  return isPostgresUrl(location) ? location : path.resolve(location);
}

export async function withDatabase<T>(cmd: Command, fn: (db: Database) => Promise<T>): Promise<T> {
  const { openDatabase } = await import('../storage/db.ts');
  const db = await openDatabase(databasePath(cmd));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export interface ServicesOptions {
  /** The database may be created and the command writes the settings itself (config init, config import). */
  create?: boolean;
  /** The database may be created with default settings (users add: scripts set up an instance before it starts). */
  createWithDefaults?: boolean;
  /** The served root, for commands that act on files (fm trash); '' (none) otherwise. */
  root?: string;
}

/**
 * Opens the database and builds the same services the server uses, so every write goes
 * through the same checks. An existing database without settings gets the defaults.
 */
export async function withServices<T>(cmd: Command, fn: (services: Services) => Promise<T>, opts: ServicesOptions = {}): Promise<T> {
  const file = databasePath(cmd);
  if (!opts.create && !opts.createWithDefaults && !isPostgresUrl(file) && !fs.existsSync(file)) {
    throw new ExitError(1, `database ${file} does not exist (create it with "fm config init", or start "fm serve" once)`);
  }
  const { createServices, shutdownServices } = await import('../services/index.ts');
  const { ensureSettings } = await import('../services/setup.ts');
  return withDatabase(cmd, async (db) => {
    const services = createServices(db, {
      root: opts.root ?? '',
      tokenLifetime: 2 * 3600,
      auth: { noauth: false, trustedProxies: [] },
      log: {
        info: () => {},
        warn: (m) => process.stderr.write(`fm: warning: ${m}\n`),
        error: (m) => process.stderr.write(`fm: error: ${m}\n`),
      },
      dataDir: db.dataDir,
    });
    try {
      if (!opts.create) await ensureSettings(services.repos);
      const result = await fn(services);
      recordCliChange(services, cmd, 0);
      return result;
    } catch (err) {
      recordCliChange(services, cmd, toExitError(err).exitCode);
      throw err;
    } finally {
      await shutdownServices(services);
    }
  });
}

/** The identity CLI writes act as: an admin outside the user table (whoever can write the database is one). */
export function cliActor(): UserRecord {
  return {
    id: 0,
    username: '(fm cli)',
    password: '',
    scope: '/',
    locale: 'en',
    lockPassword: false,
    viewMode: 'list',
    singleClick: false,
    redirectAfterCopyMove: true,
    perm: { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true },
    commands: [],
    sorting: { by: 'name', asc: true },
    rules: [],
    hideDotfiles: false,
    dateFormat: false,
    aceEditorTheme: '',
    quota: 0,
    quotaFiles: 0,
    dirSizes: false,
    sessionEpoch: 0,
    updatedAt: 0,
  };
}

/** Wraps an action so errors are reported the same way everywhere. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      throw toExitError(err);
    }
  };
}

export function toExitError(err: unknown): ExitError {
  if (err instanceof ExitError) return err;
  if (err instanceof UsageError) return new ExitError(2, err.message);
  if (err instanceof FmError) return new ExitError(1, err.message);
  // Ctrl+C or Ctrl+D at an inquirer prompt.
  if (err instanceof Error && (err.name === 'ExitPromptError' || err.name === 'AbortPromptError')) return new ExitError(1, 'cancelled');
  if (err instanceof Error) return new ExitError(1, err.message);
  return new ExitError(1, String(err));
}

/** Whether --json was given (globally or on the command). */
export function wantsJson(cmd: Command): boolean {
  return Boolean(cmd.optsWithGlobals<GlobalOptions>().json);
}

/** Prints JSON when --json is given, else the human text. */
export function output(cmd: Command, json: unknown, human: () => string): void {
  if (wantsJson(cmd)) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else {
    const text = human();
    if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}

/** Reads an import file, or standard input for `-`. */
export function readInput(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new ExitError(1, `cannot read ${file === '-' ? 'standard input' : file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/**
 * Writes an export to a file (mode 0600: exports hold password hashes and secrets), or to
 * standard output for `-`.
 */
export function writeOutput(file: string, text: string): void {
  if (file === '-') {
    process.stdout.write(text);
    return;
  }
  try {
    fs.writeFileSync(file, text, { mode: 0o600 });
    fs.chmodSync(file, 0o600);
  } catch (err) {
    throw new ExitError(1, `cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
