/**
 * Opening files for reading, safe against swapped symlinks: the final component is never
 * followed (O_NOFOLLOW) and the opened descriptor's real location is checked (Linux: readlink
 * of /proc/self/fd/<fd>) against the access root and the rules at that location.
 * O_NONBLOCK keeps a FIFO swapped in after the gate's check from blocking the server; callers
 * that need a regular file check `fh.stat()`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { ForbiddenError } from '../../../errors.ts';
import { checkDescriptorInside, hasProcFd, isInside, type Scope } from './handle.ts';
import { decodeName, osPath } from './names.ts';
import type { FileHandle } from './types.ts';

const READ_FLAGS = fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK;

/** Opens a real path for reading, confined to the scope's root and allowed at its real location. */
export async function openFileForRead(real: string, scope: Scope): Promise<FileHandle> {
  const fh = await fsp.open(osPath(real), READ_FLAGS);
  try {
    if (hasProcFd()) {
      let where = decodeName(await fsp.readlink(`/proc/self/fd/${fh.fd}`, { encoding: 'buffer' }));
      if (where.endsWith(' (deleted)')) where = where.slice(0, -' (deleted)'.length);
      if (!isInside(scope.rootReal, where) || !scope.permits(where)) throw new ForbiddenError('the path changed while it was being opened');
    }
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}

/** Opens a real path for reading, confined to `rootReal` (tree walks that checked the rules themselves). */
export async function openRealForRead(real: string, rootReal: string): Promise<FileHandle> {
  const fh = await fsp.open(osPath(real), READ_FLAGS);
  try {
    await checkDescriptorInside(fh, rootReal);
  } catch (err) {
    await fh.close();
    throw err;
  }
  return fh;
}
