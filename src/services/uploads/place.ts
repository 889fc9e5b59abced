/**
 * Moving a finished upload from the staging folder to its target: one rename (or link) on the
 * same file system. A target on another file system (a mount inside the root) gets a durable
 * copy beside it first, so the final step is still atomic.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ForbiddenError } from '../../errors.ts';
import { isWithinReal, type Target } from '../files/gate.ts';
import { PARTIAL_PREFIX, mkdirChecked, moveIntoPlace } from '../files/io.ts';
import { syncDir } from './staging.ts';

/** Moves `part` onto the target (creating missing folders); the old file is replaced only now. */
export async function placeFile(part: string, target: Target, override: boolean, dirMode: number): Promise<void> {
  const dir = path.dirname(target.abs);
  await mkdirChecked(target, dir, dirMode);
  // The parent was checked by the gate and mkdirChecked; make sure it was not swapped since.
  const dirReal = await fsp.realpath(dir);
  if (!isWithinReal(target.access.rootReal, dirReal)) throw new ForbiddenError('the path leads outside your scope');
  try {
    await moveIntoPlace(part, target.abs, override);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyThenMove(part, target.abs, override);
  }
  await syncDir(dir).catch(() => {});
}

async function copyThenMove(part: string, dest: string, override: boolean): Promise<void> {
  const tmp = path.join(path.dirname(dest), `${PARTIAL_PREFIX}${crypto.randomBytes(8).toString('hex')}`);
  try {
    await fsp.copyFile(part, tmp, fs.constants.COPYFILE_EXCL);
    await fsp.chmod(tmp, (await fsp.stat(part)).mode & 0o7777);
    const fh = await fsp.open(tmp, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await moveIntoPlace(tmp, dest, override);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fsp.rm(part, { force: true });
}
