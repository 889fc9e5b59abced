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

/** Names of in-progress writes; listings, search and archives never show them. */
export { PARTIAL_PREFIX };
export const isPartialName = (name: string) => name.startsWith(PARTIAL_PREFIX);

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants;

/** Throws unless the descriptor's real location is inside `rootReal`. */
async function verifyDescriptor(fh: fsp.FileHandle, rootReal: string): Promise<void> {
  let where: string;
  try {
    where = await fsp.readlink(`/proc/self/fd/${fh.fd}`);
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
  const fh = await fsp.open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
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

/** Options of the tree primitives below. */
export interface TreeOptions {
  /** The access root every path must stay inside. */
  rootReal: string;
  /** Replace existing files (folders merge); otherwise an existing name is a 409. */
  override: boolean;
  /** Skips an absolute source path (fm's own files). */
  skip?: (abs: string) => boolean;
}

/**
 * Copies one regular file through a temporary file beside `dest` (atomic, no partial file),
 * keeping its permission bits. The source is opened without following links and confined.
 */
export async function copyFileAtomic(srcReal: string, dest: string, opts: TreeOptions): Promise<void> {
  const src = await openRealForRead(srcReal, opts.rootReal);
  let tmpFh: fsp.FileHandle | undefined;
  const tmp = path.join(path.dirname(dest), `${PARTIAL_PREFIX}${crypto.randomBytes(8).toString('hex')}`);
  try {
    const st = await src.stat();
    if (!st.isFile()) throw new ConflictError(`${path.basename(srcReal)} is not a regular file`);
    const mode = st.mode & 0o777;
    tmpFh = await fsp.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    await verifyDescriptor(tmpFh, opts.rootReal);
    // The read stream closes the source handle when it ends; the final close() is then a no-op.
    await pipeline(src.createReadStream({ highWaterMark: 1 << 20 }), handleWriter(tmpFh));
    await tmpFh.chmod(mode);
    await tmpFh.close();
    tmpFh = undefined;
    await moveIntoPlace(tmp, dest, opts.override);
  } catch (err) {
    await tmpFh?.close().catch(() => {});
    await fsp.unlink(tmp).catch(() => {});
    throw err;
  } finally {
    await src.close().catch(() => {});
  }
}

/**
 * Copies a file or a folder tree to `dest` (whose parent exists). Folders merge into an existing
 * folder; links are recreated as links (never followed); FIFOs, sockets and devices are skipped.
 */
export async function copyTree(srcReal: string, dest: string, opts: TreeOptions): Promise<void> {
  const top = await fsp.lstat(srcReal);
  if (!top.isDirectory()) {
    await copyEntry(srcReal, top, dest, opts);
    return;
  }
  const stack: Array<[string, string, fs.Stats]> = [[srcReal, dest, top]];
  while (stack.length) {
    const [from, to, st] = stack.pop()!;
    await mkdirForCopy(to, st.mode & 0o777, opts);
    for (const d of await fsp.readdir(from, { withFileTypes: true })) {
      if (d.name.startsWith(PARTIAL_PREFIX)) continue;
      const child = path.join(from, d.name);
      if (opts.skip?.(child)) continue;
      const childSt = await fsp.lstat(child).catch(() => undefined);
      if (!childSt) continue; // vanished meanwhile
      if (childSt.isDirectory()) stack.push([child, path.join(to, d.name), childSt]);
      else await copyEntry(child, childSt, path.join(to, d.name), opts);
    }
  }
}

async function copyEntry(from: string, st: fs.Stats, to: string, opts: TreeOptions): Promise<void> {
  if (st.isFile()) return copyFileAtomic(from, to, opts);
  if (!st.isSymbolicLink()) return; // FIFOs, sockets, devices are not copied
  const link = await fsp.readlink(from);
  const existing = await fsp.lstat(to).catch(() => undefined);
  if (existing) {
    if (!opts.override) throw new ConflictError(`${path.basename(to)} already exists`);
    if (existing.isDirectory()) throw new ConflictError(`a folder named ${path.basename(to)} exists`);
    await fsp.unlink(to);
  }
  await fsp.symlink(link, to);
}

/** Creates (or, when merging, reuses) a copy's folder; a link or a file in the way is a conflict. */
async function mkdirForCopy(dir: string, mode: number, opts: TreeOptions): Promise<void> {
  if (!isWithinReal(opts.rootReal, dir)) throw new ForbiddenError('the path leads outside your scope');
  try {
    await fsp.mkdir(dir, { mode });
    await fsp.chmod(dir, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = await fsp.lstat(dir);
    if (!st.isDirectory()) throw new ConflictError(`${path.basename(dir)} exists and is not a folder`);
    if (!opts.override) throw new ConflictError(`${path.basename(dir)} already exists`);
  }
}

/**
 * Moves `src` onto `dest` (whose parent exists): a rename when possible, merging into an
 * existing folder with override, and a copy then delete across file systems (EXDEV).
 */
export async function moveTree(src: string, dest: string, opts: TreeOptions): Promise<void> {
  const st = await fsp.lstat(src);
  const existing = await fsp.lstat(dest).catch(() => undefined);
  if (existing && !sameEntry(st, existing)) {
    if (!opts.override) throw new ConflictError(`${path.basename(dest)} already exists`);
    if (existing.isDirectory() !== st.isDirectory()) {
      throw new ConflictError(`${path.basename(dest)} exists and is a ${existing.isDirectory() ? 'folder' : 'file'}`);
    }
    if (st.isDirectory()) {
      await mergeFolder(src, dest, opts);
      return;
    }
  }
  try {
    await fsp.rename(src, dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyTree(src, dest, opts);
    await removeTree(src);
  }
}

/** Moves every child of `src` into the existing folder `dest`, then removes `src`. */
async function mergeFolder(src: string, dest: string, opts: TreeOptions): Promise<void> {
  for (const d of await fsp.readdir(src, { withFileTypes: true })) {
    const from = path.join(src, d.name);
    if (opts.skip?.(from)) continue;
    await moveTree(from, path.join(dest, d.name), opts);
  }
  await fsp.rmdir(src);
}

/** Removes a file, a link (never its target) or a whole folder tree. */
export async function removeTree(abs: string): Promise<void> {
  await fsp.rm(abs, { recursive: true, force: false, maxRetries: 2 });
}

/** The same directory entry (a case-only rename on a case-insensitive file system). */
export function sameEntry(a: fs.Stats, b: fs.Stats): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}
