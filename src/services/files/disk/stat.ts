/**
 * Metadata of paths in fm's string form (names.ts): every call hands node:fs the exact bytes
 * (`osPath`), so a name that is not UTF-8 is found like any other. Modules outside disk/ take
 * their `Stats`, `Dirent` and `FileHandle` types from here rather than from node:fs.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { osPath } from './names.ts';

export type { BigIntStats, Dirent, Stats } from 'node:fs';
export type { FileHandle } from 'node:fs/promises';

export function lstat(p: string): Promise<fs.Stats> {
  return fsp.lstat(osPath(p));
}

export function stat(p: string): Promise<fs.Stats> {
  return fsp.stat(osPath(p));
}

export function lstatSync(p: string): fs.Stats {
  return fs.lstatSync(osPath(p));
}

/** lstat, or undefined when the entry is missing or cannot be read (vanished meanwhile). */
export function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(osPath(p), { throwIfNoEntry: false });
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
