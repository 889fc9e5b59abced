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
import { PassThrough, Transform, Writable, type Readable } from 'node:stream';
import { BadRequestError, ConflictError, ForbiddenError } from '../../errors.ts';
import { PARTIAL_PREFIX, isWithinReal, type Target } from './gate.ts';
import { readLink } from './disk/dirents.ts';
import { osPath } from './disk/names.ts';

/** Names of in-progress writes; listings, search and archives never show them. */
export { PARTIAL_PREFIX };
export const isPartialName = (name: string) => name.startsWith(PARTIAL_PREFIX);

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** Throws unless the descriptor's real location is inside `rootReal`. */
export async function verifyDescriptor(fh: fsp.FileHandle, rootReal: string): Promise<void> {
  let where: string;
  try {
    where = await readLink(`/proc/self/fd/${fh.fd}`);
  } catch {
    return; // No /proc (not Linux): the O_NOFOLLOW open and the gate's realpath checks stand.
  }
  if (where.endsWith(' (deleted)')) where = where.slice(0, -' (deleted)'.length);
  if (!isWithinReal(rootReal, where)) {
    await fh.close();
    throw new ForbiddenError('the path changed while it was being opened');
  }
}

/**
 * Opens a resolved file for reading. O_NONBLOCK keeps a FIFO swapped in after the gate's check
 * from blocking the server; callers that need a regular file check `fh.stat()`.
 */
export async function openForRead(target: Target): Promise<fsp.FileHandle> {
  return openRealForRead(target.real, target.access.rootReal);
}

/** Opens a real path (a tree entry's, a link target's) for reading, confined to `rootReal`. */
export async function openRealForRead(real: string, rootReal: string): Promise<fsp.FileHandle> {
  const fh = await fsp.open(osPath(real), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  await verifyDescriptor(fh, rootReal);
  return fh;
}

export interface WriteOptions {
  /** Replace an existing file (otherwise 409 when it exists, decided atomically). */
  override: boolean;
  /** Mode for a new file (an overridden file keeps its mode). */
  fileMode: number;
  /** Mode for missing parent folders. */
  dirMode: number;
  /** Called with each chunk's size (upload progress, limits); may throw to abort the write. */
  onBytes?: (n: number) => void;
}

/**
 * A Writable over a FileHandle that leaves the handle open. (`fh.createWriteStream` with
 * `autoClose: false` keeps a reference on the handle, so a later `fh.close()` never settles.)
 */
export function handleWriter(fh: fsp.FileHandle): Writable {
  return new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, done) {
      fh.write(chunk).then(() => done(), done);
    },
    writev(chunks, done) {
      fh.writev(chunks.map((c) => c.chunk as Buffer)).then(() => done(), done);
    },
  });
}

/** A pass-through that reports each chunk's size; a throwing callback fails the pipeline. */
function byteCounter(onBytes: (n: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        onBytes(chunk.length);
      } catch (err) {
        done(err as Error);
        return;
      }
      done(null, chunk);
    },
  });
}

/**
 * Reads `source` through a PassThrough, so that a failed write (a limit, a full disk) destroys
 * only the PassThrough: a request body stays intact and the server can still answer (413, 409)
 * instead of resetting the connection. A source that closes before its end fails the copy.
 */
function detached(source: Readable): Readable {
  const through = new PassThrough({ highWaterMark: 1 << 20 });
  const onError = (err: Error) => through.destroy(err);
  const onClose = () => {
    if (!source.readableEnded) through.destroy(new BadRequestError('the upload was aborted'));
  };
  source.on('error', onError);
  source.on('close', onClose);
  through.on('close', () => {
    source.unpipe(through);
    source.off('error', onError);
    source.off('close', onClose);
  });
  source.pipe(through);
  // Aborted before we started reading: 'close' has already fired.
  if (source.destroyed && !source.readableEnded) through.destroy(new BadRequestError('the upload was aborted'));
  return through;
}

/**
 * Streams `source` into a temporary file beside the target, fsyncs it, then moves it into place:
 * a failed or aborted write leaves no partial file and never truncates the old one. A target
 * that is a symlink inside the scope is written at its real location (`target.real`).
 */
export async function writeFileAtomic(target: Target, source: Readable | Buffer | string, opts: WriteOptions): Promise<fs.Stats> {
  const dest = target.real;
  const dir = path.dirname(dest);
  await mkdirChecked(target, dir, opts.dirMode);
  const tmp = path.join(dir, `${PARTIAL_PREFIX}${crypto.randomBytes(8).toString('hex')}`);
  let mode = opts.fileMode;
  if (opts.override && target.exists && target.stat?.isFile()) mode = target.stat.mode & 0o777;
  const fh = await fsp.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    await verifyDescriptor(fh, target.access.rootReal);
    if (typeof source === 'string' || Buffer.isBuffer(source)) {
      opts.onBytes?.(Buffer.byteLength(source));
      await fh.writeFile(source);
    } else {
      const out = handleWriter(fh);
      const input = detached(source);
      if (opts.onBytes) await pipeline(input, byteCounter(opts.onBytes), out);
      else await pipeline(input, out);
    }
    await fh.chmod(mode);
    await fh.sync();
    await fh.close();
    await moveIntoPlace(tmp, dest, opts.override);
  } catch (err) {
    await fh.close().catch(() => {});
    await fsp.unlink(tmp).catch(() => {});
    throw err;
  }
  return fsp.lstat(dest);
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
 * never following a symlink planted in the way. New folders get exactly `mode` (umask aside).
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
      await fsp.chmod(cur, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await fsp.lstat(cur);
      if (st.isSymbolicLink()) {
        const real = await fsp.realpath(cur).catch(() => '');
        if (!real || !isWithinReal(root, real)) throw new ForbiddenError('the path leads outside your scope');
        if (!(await fsp.stat(real)).isDirectory()) throw new ConflictError(`${seg} exists and is not a folder`);
      } else if (!st.isDirectory()) throw new ConflictError(`${seg} exists and is not a folder`);
    }
  }
}
