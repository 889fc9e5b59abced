/**
 * Copy, move and remove of whole trees inside one access root: atomic file copies, links
 * recreated and never followed, folders merged on override, copy + delete across devices.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ConflictError, ForbiddenError } from '../../errors.ts';
import { PARTIAL_PREFIX, isWithinReal } from './gate.ts';
import { handleWriter, moveIntoPlace, openRealForRead, verifyDescriptor } from './io.ts';
import { osPath } from './disk/names.ts';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;

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
  const st = await fsp.lstat(osPath(src));
  const existing = await fsp.lstat(osPath(dest)).catch(() => undefined);
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
    await fsp.rename(osPath(src), osPath(dest));
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
