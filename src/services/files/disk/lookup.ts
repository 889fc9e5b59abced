/**
 * Path lookups (lstat, stat, realpath, statfs), byte-exact: a path in fm's string form is
 * passed as its exact bytes (names.ts) and real paths come back decoded. The gate decides
 * with them and the walkers read metadata with them. They read; nothing here changes the disk
 * except `makeFolders`, which creates a scope folder.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { osPath } from './names.ts';
import { realPath, realPathNow, realPathSync } from './dirents.ts';
import type { BigIntStats, Stats } from './types.ts';

export { realPath, realPathNow, realPathSync };

export function lstat(p: string): Promise<Stats> {
  return fsp.lstat(osPath(p));
}

export function stat(p: string): Promise<Stats> {
  return fsp.stat(osPath(p));
}

/** stat with nanosecond times (ETags are built from them, operations.ts `etagOf`); undefined when missing. */
export async function statNs(p: string): Promise<BigIntStats | undefined> {
  try {
    return await fsp.stat(osPath(p), { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * `statNs` of many paths: synchronous stats in batches that yield between them (on 2 cores
 * faster than a promise per path through the thread pool, as the listing's stats are).
 */
export async function statNsMany(paths: string[]): Promise<Array<BigIntStats | undefined>> {
  const out: Array<BigIntStats | undefined> = new Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % 512 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    out[i] = fs.statSync(osPath(paths[i]), { bigint: true, throwIfNoEntry: false });
  }
  return out;
}

export function lstatSync(p: string): Stats {
  return fs.lstatSync(osPath(p));
}

export function statSync(p: string): Stats {
  return fs.statSync(osPath(p));
}

/** lstat, or undefined when nothing is there (a missing path or a file where a folder should be). */
export async function lstatOrMissing(p: string): Promise<Stats | undefined> {
  try {
    return await fsp.lstat(osPath(p));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** lstatOrMissing on this thread (some 2 µs of CPU against 19 µs through the thread pool). */
export function lstatOrMissingNow(p: string): Stats | undefined {
  try {
    return fs.lstatSync(osPath(p), { throwIfNoEntry: false });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** lstat, or undefined when the entry is missing or cannot be read (vanished meanwhile). */
export function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return fs.lstatSync(osPath(p), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * lstatOrUndefined of a path the caller knows holds no escaped bytes (names.ts: a folder read
 * without any name that needed the byte-exact reading), so it skips looking for them (a scan of
 * a million entries spent ~0.2 s in that test).
 */
export function lstatPlainOrUndefined(p: string): Stats | undefined {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The file system holding a path (total and free blocks). */
export function statFs(p: string): Promise<fs.StatsFs> {
  return fsp.statfs(osPath(p));
}

/** Whether a file exists and may be executed by this process (looking up programs on PATH). */
export function isExecutable(p: string): boolean {
  try {
    fs.accessSync(osPath(p), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Creates a folder and its missing parents (a new user's scope folder, made by the gate). */
export async function makeFolders(p: string, mode: number): Promise<void> {
  await fsp.mkdir(osPath(p), { recursive: true, mode });
}

/** Bytes an unprivileged writer may still use on the file system holding `p` (statfs). */
export async function freeBytes(p: string): Promise<number> {
  const s = await fsp.statfs(osPath(p));
  return s.bavail * s.bsize;
}
