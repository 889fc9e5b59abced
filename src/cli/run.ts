/**
 * The action wrapper: actions throw, never exit. FmErrors and usage errors become one line
 * on stderr and an exit code (2 usage, 1 failure).
 */
import type { Command } from 'commander';
import { FmError, UsageError } from '../errors.ts';
import { openDatabase, type Database } from '../storage/db.ts';
import { defaultDatabasePath } from '../paths.ts';

export interface GlobalOptions {
  database?: string;
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

/** The database file: --database, then FM_DATABASE (commander reads the env), then the data folder. */
export function databasePath(cmd: Command): string {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  return opts.database || defaultDatabasePath();
}

export async function withDatabase<T>(cmd: Command, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(databasePath(cmd));
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
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
  if (err instanceof Error) return new ExitError(1, err.message);
  return new ExitError(1, String(err));
}

/** Prints JSON when --json is given, else the human text. */
export function output(cmd: Command, json: unknown, human: () => string): void {
  if (cmd.optsWithGlobals<GlobalOptions>().json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else {
    const text = human();
    if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }
}
