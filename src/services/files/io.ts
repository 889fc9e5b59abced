/**
 * File I/O on gate targets, safe against swapped symlinks: files are opened without following
 * a final link and the opened descriptor's real path is checked against the access root.
 * Writes go to a hidden temporary file beside the target and replace it atomically.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { ConflictError, ForbiddenError } from '../../errors.ts';
import { isWithinReal, type Target } from './gate.ts';

/** Names of in-progress writes; listings, search and archives never show them. */
export const PARTIAL_PREFIX = '.fm-partial-';
export const isPartialName = (name: string) => name.startsWith(PARTIAL_PREFIX);

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

/** Throws unless the descriptor's real location is inside `rootReal`. */
async function verifyDescriptor(fh: fsp.FileHandle, rootReal: string): Promise<void> {
  let where: string;
  try {
    where = await fsp.readlink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return; // No /proc (not Linux): the O_NOFOLLOW open and the gate's realpath checks stand.
  }
  if (!isWithinReal(rootReal, where)) {
    await fh.close();
    throw new ForbiddenError('the path changed while it was being opened');
  }
}

/** Opens a resolved file for reading. */
export async function openForRead(target: Target): Promise<fsp.FileHandle> {
  const fh = await fsp.open(target.real, O_RDONLY | O_NOFOLLOW);
  await verifyDescriptor(fh, target.access.rootReal);
  return fh;
}

export interface WriteOptions {
  /** Replace an existing file (otherwise 409 when it exists, decided atomically). */
  override: boolean;
  /** Mode for a new file (an overridden file keeps its mode). */
  fileMode: number;
  /** Mode for missing parent folders. */
  dirMode: number;
  /** Called with each chunk's size (upload progress, limits). */
  onBytes?: (n: number) => void;
}

/**
 * Streams `source` into a temporary file beside the target, fsyncs it, then moves it into place:
 * a failed or aborted write leaves no partial file and never truncates the old one.
 */
export async function writeFileAtomic(target: Target, source: Readable | Buffer | string, opts: WriteOptions): Promise<fs.Stats> {
  const dir = path.dirname(target.abs);
  await mkdirChecked(target, dir, opts.dirMode);
  const tmp = path.join(dir, `${PARTIAL_PREFIX}${crypto.randomBytes(8).toString('hex')}`);
  let mode = opts.fileMode;
  if (opts.override && target.exists && target.lstat?.isFile()) mode = target.lstat.mode & 0o7777;
  const fh = await fsp.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    await verifyDescriptor(fh, target.access.rootReal);
    if (typeof source === 'string' || Buffer.isBuffer(source)) {
      await fh.writeFile(source);
      opts.onBytes?.(Buffer.byteLength(source));
    } else {
      const out = fh.createWriteStream({ autoClose: false, highWaterMark: 1 << 20 });
      if (opts.onBytes) source.on('data', (chunk: Buffer) => opts.onBytes!(chunk.length));
      await pipeline(source, out);
    }
    await fh.chmod(mode);
    await fh.sync();
    await fh.close();
    await moveIntoPlace(tmp, target.abs, opts.override);
  } catch (err) {
    await fh.close().catch(() => {});
    await fsp.unlink(tmp).catch(() => {});
    throw err;
  }
  return fsp.lstat(target.abs);
}

/** Moves a finished temp file onto `dest`: rename when replacing, link+unlink (no clobber) otherwise. */
export async function moveIntoPlace(tmp: string, dest: string, override: boolean): Promise<void> {
  if (override) {
    const st = await fsp.lstat(dest).catch(() => undefined);
    if (st?.isDirectory()) throw new ConflictError('a folder with that name exists');
    await fsp.rename(tmp, dest);
    return;
  }
  try {
    await fsp.link(tmp, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictError('a file with that name exists');
    throw err;
  }
  await fsp.unlink(tmp);
}

/**
 * Creates `dir` and its missing parents inside the target's access root, one level at a time,
 * never following a symlink planted in the way.
 */
export async function mkdirChecked(target: Target, dir: string, mode: number): Promise<void> {
  const root = target.access.rootReal;
  if (!isWithinReal(root, dir)) throw new ForbiddenError('the path leads outside your scope');
  const rel = path.relative(root, dir);
  let cur = root;
  for (const seg of rel ? rel.split(path.sep) : []) {
    cur = path.join(cur, seg);
    try {
      await fsp.mkdir(cur, { mode });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await fsp.lstat(cur);
      if (st.isSymbolicLink()) {
        const real = await fsp.realpath(cur).catch(() => '');
        if (!real || !isWithinReal(root, real)) throw new ForbiddenError('the path leads outside your scope');
      } else if (!st.isDirectory()) throw new ConflictError(`${seg} exists and is not a folder`);
    }
  }
}
