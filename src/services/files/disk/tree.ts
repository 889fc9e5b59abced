/**
 * Copy, move and remove of whole trees through folder handles (handle.ts): every entry is
 * reached relative to an opened parent and children are opened without following links, so a
 * folder swapped for a symlink mid-walk cannot steer an operation out of the tree. Names are
 * byte-exact; every entry is handled, none skipped (except fm's own temporary files, and
 * FIFOs, sockets and devices, which a copy cannot recreate: a move across file systems refuses
 * them). Errors name the entry they happened at.
 *
 * A folder copied to a new name is built under a temporary name and renamed into place once
 * complete, so a failed copy leaves nothing behind. A move across file systems copies first
 * (every file fsynced, sizes checked, the source unchanged meanwhile), then removes from the
 * source exactly what it copied; any failure before that leaves the source whole.
 */
import fs from 'node:fs';
import { ConflictError, FmError, ForbiddenError, NotFoundError, errnoToFmError } from '../../../errors.ts';
import type { DirHandle } from './handle.ts';
import { displayName } from './names.ts';
import { isPartialName, tempIn } from './partials.ts';
import { placeFile } from './place.ts';
import type { Dirent, Stats } from './types.ts';

const { O_RDONLY, O_NONBLOCK } = fs.constants;
/** Entries of a folder removed at once (an unlink holds no descriptor; a deep queue keeps the disk busy). */
const REMOVALS_AT_ONCE = 128;
/** Files of a folder copied at once (each holds two descriptors). */
const COPIES_AT_ONCE = 16;
/** Subfolders walked at once, while the walk holds fewer than MAX_OPEN folder handles (else one at a time). */
const FOLDERS_AT_ONCE = 32;
const MAX_OPEN = 128;

/** Folder handles a recursive operation holds open (the bound on parallel subfolders). */
interface Walk {
  open: number;
}

/** The parallelism for the subfolders of a folder, by the handles the walk holds. */
const foldersAtOnce = (walk: Walk) => (walk.open < MAX_OPEN ? FOLDERS_AT_ONCE : 1);

/** What a copy made of one source entry, so a move removes exactly that. */
interface Copied {
  ino: number;
  size: number;
  mtimeMs: number;
  children?: Map<string, Copied>;
}

interface CopyOptions {
  override: boolean;
  /** A move across file systems: refuse entries a copy cannot recreate, check that nothing changed. */
  forMove: boolean;
  walk: Walk;
}

/** Removes a file, a link (never its target) or a whole folder tree. */
export async function removeEntry(dir: DirHandle, name: string, rel = name, retried = false, walk: Walk = { open: 0 }): Promise<void> {
  const st = await guard(`could not delete ${displayName(rel)}`, () => dir.lstatOrMissing(name));
  if (!st) return;
  if (!st.isDirectory()) return removeLeaf(dir, name, rel, walk);
  return removeFolder(dir, name, rel, retried, walk);
}

/** Removes a folder tree (a folder swapped for something else meanwhile is removed as that). */
async function removeFolder(dir: DirHandle, name: string, rel: string, retried: boolean, walk: Walk): Promise<void> {
  let child: DirHandle;
  try {
    child = await dir.child(name);
  } catch (err) {
    // Swapped for a link or a file since the lstat: remove whatever is there now (a link is
    // removed itself, never followed).
    if (!retried && (err instanceof ConflictError || err instanceof ForbiddenError)) return removeEntry(dir, name, rel, true, walk);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw failure(err, `could not delete ${displayName(rel)}`);
  }
  walk.open++;
  try {
    const entries = await guard(`could not read ${displayName(rel)}`, () => child.entries());
    const { folders, others } = await split(child, entries);
    await all([
      eachLimited(others, REMOVALS_AT_ONCE, (n) => removeLeaf(child, n, `${rel}/${n}`, walk)),
      // Listed as folders: opened at once, without an lstat first.
      eachLimited(folders, foldersAtOnce(walk), (n) => removeFolder(child, n, `${rel}/${n}`, false, walk)),
    ]);
  } finally {
    walk.open--;
    await child.close();
  }
  await guard(`could not delete ${displayName(rel)}`, () => dir.rmdir(name).catch(ignoreMissing));
}

/** Unlinks a non-folder entry; one that turned into a folder meanwhile is removed as a tree. */
function removeLeaf(dir: DirHandle, name: string, rel: string, walk: Walk): Promise<void> {
  return dir.unlink(name).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return;
    // EISDIR (Linux) or EPERM (elsewhere) for a folder; EPERM for a file stays an error.
    if (err.code === 'EISDIR' || err.code === 'EPERM') {
      const st = await dir.lstatOrMissing(name).catch(() => undefined);
      if (st?.isDirectory()) return removeFolder(dir, name, rel, true, walk);
    }
    throw failure(err, `could not delete ${displayName(rel)}`);
  });
}

/**
 * Copies a file, a link (as a link) or a folder tree to `toName` in `dst`. A folder merges into
 * an existing folder with override; otherwise an existing name is a 409. FIFOs, sockets and
 * devices are not copied.
 */
export async function copyEntry(src: DirHandle, name: string, dst: DirHandle, toName: string, override: boolean): Promise<void> {
  const st = await guard(`could not copy ${displayName(name)}`, () => src.lstat(name));
  const opts = { override, forMove: false, walk: { open: 0 } };
  if (st.isDirectory() && !(await dst.lstatOrMissing(toName))) {
    await copyFolderAtomically(src, name, dst, toName, opts);
  } else {
    await copyOne(src, name, dst, toName, opts, name);
  }
  await dst.sync();
}

/**
 * Moves an entry onto `toName` in `dst`: one rename on the same file system (merging into an
 * existing folder with override), else copy, check, then remove the source (see the module
 * comment). The caller has checked the conflict rules; they are enforced again here.
 */
export async function moveEntry(src: DirHandle, name: string, dst: DirHandle, toName: string, override: boolean): Promise<void> {
  const st = await guard(`could not move ${displayName(name)}`, () => src.lstat(name));
  const existing = await dst.lstatOrMissing(toName);
  const same = existing !== undefined && existing.ino === st.ino && existing.dev === st.dev;
  if (existing && !same) {
    if (!override) throw new ConflictError(`${displayName(toName)} already exists`);
    if (existing.isDirectory() !== st.isDirectory()) {
      throw new ConflictError(`${displayName(toName)} exists and is a ${existing.isDirectory() ? 'folder' : 'file'}`);
    }
  }
  const across = (await dst.stat()).dev !== st.dev;
  if (!across) {
    if (existing && !same && st.isDirectory()) return mergeFolder(src, name, dst, toName, name);
    try {
      await src.rename(name, dst, toName);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw failure(err, `could not move ${displayName(name)}`);
    }
  }
  await moveAcross(src, name, st, dst, toName, Boolean(existing && !same));
}

/** Moves every child of a folder into an existing folder (same file system), then removes it. */
async function mergeFolder(src: DirHandle, name: string, dst: DirHandle, toName: string, rel: string): Promise<void> {
  const from = await src.child(name);
  try {
    const to = await dst.child(toName);
    try {
      for (const e of await from.entries()) {
        if (isPartialName(e.name)) continue;
        await moveEntry(from, e.name, to, e.name, true).catch((err) => {
          throw failure(err, `could not move ${displayName(`${rel}/${e.name}`)}`);
        });
      }
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
  await guard(`could not remove the moved folder ${displayName(rel)}`, () => src.rmdir(name));
}

/** Copy, check, then remove: the source stays whole unless everything arrived. */
async function moveAcross(src: DirHandle, name: string, st: Stats, dst: DirHandle, toName: string, merge: boolean): Promise<void> {
  const opts = { override: merge, forMove: true, walk: { open: 0 } };
  const copied = st.isDirectory() && !merge ? await copyFolderAtomically(src, name, dst, toName, opts) : await copyOne(src, name, dst, toName, opts, name);
  if (!copied) throw new NotFoundError(`${displayName(name)} disappeared`);
  await dst.sync();
  const left: string[] = [];
  await removeCopied(src, name, copied, name, left, { open: 0 });
  await src.sync().catch(() => {});
  if (left.length) {
    const more = left.length > 1 ? ` and ${left.length - 1} more` : '';
    throw new ConflictError(`moved, but ${displayName(left[0])}${more} changed or appeared during the move and stayed where it was`);
  }
}

/** Builds a folder copy under a temporary name, then renames it to `toName` (nothing is left on failure). */
async function copyFolderAtomically(src: DirHandle, name: string, dst: DirHandle, toName: string, opts: CopyOptions): Promise<Copied | undefined> {
  const temp = await tempIn(dst);
  let leftBehind = false;
  try {
    const copied = await copyOne(src, name, dst, temp.name, opts, name);
    if (await dst.lstatOrMissing(toName)) throw new ConflictError(`${displayName(toName)} already exists`);
    await guard(`could not copy ${displayName(name)}`, () => dst.rename(temp.name, dst, toName));
    return copied;
  } catch (err) {
    // Still empty (it failed early) needs no walk; else remove what was copied.
    await dst
      .rmdir(temp.name)
      .catch(() => removeEntry(dst, temp.name))
      .catch(() => {
        leftBehind = true;
      });
    throw err;
  } finally {
    temp.release(leftBehind);
  }
}

/** Copies one entry (a folder with its contents). Undefined when it vanished or cannot be copied. */
async function copyOne(src: DirHandle, name: string, dst: DirHandle, toName: string, opts: CopyOptions, rel: string): Promise<Copied | undefined> {
  const what = `could not ${opts.forMove ? 'move' : 'copy'} ${displayName(rel)}`;
  const st = await guard(what, () => src.lstatOrMissing(name));
  if (!st) return undefined;
  if (st.isDirectory()) return copyFolder(src, name, st, dst, toName, opts, rel);
  if (st.isFile()) return guard(what, () => copyFile(src, name, dst, toName, opts, rel));
  if (st.isSymbolicLink()) return guard(what, () => copyLink(src, name, st, dst, toName, opts, rel));
  if (opts.forMove) {
    throw new ConflictError(`${displayName(rel)} is a ${specialKind(st)} and cannot be moved to another file system; nothing was moved`);
  }
  return undefined;
}

async function copyFolder(src: DirHandle, name: string, st: Stats, dst: DirHandle, toName: string, opts: CopyOptions, rel: string): Promise<Copied> {
  const walk = opts.walk;
  const what = `could not ${opts.forMove ? 'move' : 'copy'} ${displayName(rel)}`;
  const existing = await guard(what, () => dst.lstatOrMissing(toName));
  if (existing && !existing.isDirectory()) throw new ConflictError(`${displayName(rel)}: ${displayName(toName)} exists and is not a folder`);
  if (existing && !opts.override) throw new ConflictError(`${displayName(toName)} already exists`);
  const to = await guard(what, () => (existing ? dst.child(toName) : dst.makeChild(toName, st.mode & 0o777)));
  const children = new Map<string, Copied>();
  try {
    const from = await guard(what, () => src.child(name));
    walk.open += 2;
    try {
      const entries = (await guard(what, () => from.entries())).filter((e) => !isPartialName(e.name));
      const { folders, others } = await split(from, entries);
      const one = async (n: string) => {
        const c = await copyOne(from, n, to, n, opts, `${rel}/${n}`);
        if (c) children.set(n, c);
      };
      await all([eachLimited(others, COPIES_AT_ONCE, one), eachLimited(folders, foldersAtOnce(walk), one)]);
    } finally {
      walk.open -= 2;
      await from.close();
    }
    await guard(what, () => to.sync());
  } finally {
    await to.close();
  }
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, children };
}

/**
 * Copies a regular file through placeFile, opened without following a link. For a move, the
 * copy must have every byte and the source must not have changed while it was read.
 */
async function copyFile(src: DirHandle, name: string, dst: DirHandle, toName: string, opts: CopyOptions, rel: string): Promise<Copied | undefined> {
  const fh = await src.openFile(name, O_RDONLY | O_NONBLOCK);
  try {
    const before = await fh.stat();
    if (!before.isFile()) throw new ConflictError(`${displayName(rel)} is not a regular file`);
    const placed = await placeFile(dst, toName, { kind: 'file', file: fh }, { override: opts.override, mode: before.mode & 0o777, syncFolder: false });
    if (opts.forMove) {
      const after = await fh.stat();
      if (placed.bytes !== before.size || placed.stat.size !== before.size || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
        throw new ConflictError(`${displayName(rel)} changed while it was being moved; nothing was moved`);
      }
    }
    return { ino: before.ino, size: before.size, mtimeMs: before.mtimeMs };
  } finally {
    await fh.close();
  }
}

/** Recreates a link as a link (its target text, byte-exact); never follows it. */
async function copyLink(src: DirHandle, name: string, st: Stats, dst: DirHandle, toName: string, opts: CopyOptions, rel: string): Promise<Copied> {
  const target = await src.readlink(name);
  const existing = await dst.lstatOrMissing(toName);
  if (existing) {
    if (!opts.override) throw new ConflictError(`${displayName(toName)} already exists`);
    if (existing.isDirectory()) throw new ConflictError(`${displayName(rel)}: a folder named ${displayName(toName)} exists`);
    await dst.unlink(toName);
  }
  await dst.symlink(target, toName);
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
}

/**
 * Removes from the source what a move copied: an entry replaced or changed since (another
 * inode, another size or time) and a folder that gained entries stay, listed in `left`.
 */
async function removeCopied(dir: DirHandle, name: string, copied: Copied, rel: string, left: string[], walk: Walk): Promise<void> {
  const what = `could not remove the moved ${displayName(rel)}`;
  const st = await guard(what, () => dir.lstatOrMissing(name));
  if (!st) return;
  if (st.ino !== copied.ino || st.isDirectory() !== Boolean(copied.children)) {
    left.push(rel);
    return;
  }
  if (!copied.children) {
    if (st.isFile() && (st.size !== copied.size || st.mtimeMs !== copied.mtimeMs)) {
      left.push(rel);
      return;
    }
    await guard(what, () => dir.unlink(name).catch(ignoreMissing));
    return;
  }
  const child = await guard(what, () => dir.child(name));
  walk.open++;
  try {
    const entries = [...copied.children];
    const one = ([n, c]: [string, Copied]) => removeCopied(child, n, c, `${rel}/${n}`, left, walk);
    await all([
      eachLimited(
        entries.filter(([, c]) => !c.children),
        REMOVALS_AT_ONCE,
        one,
      ),
      eachLimited(
        entries.filter(([, c]) => c.children),
        foldersAtOnce(walk),
        one,
      ),
    ]);
  } finally {
    walk.open--;
    await child.close();
  }
  try {
    await dir.rmdir(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') {
      if (!left.some((l) => l.startsWith(`${rel}/`))) left.push(rel);
      return;
    }
    if (code !== 'ENOENT') throw failure(err, what);
  }
}

/** Folder names and other names of a listing (types from d_type; lstat where it is unknown). */
async function split(dir: DirHandle, entries: Dirent[]): Promise<{ folders: string[]; others: string[] }> {
  const folders: string[] = [];
  const others: string[] = [];
  for (const e of entries) {
    let isDir = e.isDirectory();
    if (!isDir && !knownType(e)) isDir = Boolean((await dir.lstatOrMissing(e.name))?.isDirectory());
    (isDir ? folders : others).push(e.name);
  }
  return { folders, others };
}

function knownType(e: Dirent): boolean {
  return e.isFile() || e.isDirectory() || e.isSymbolicLink() || e.isFIFO() || e.isSocket() || e.isBlockDevice() || e.isCharacterDevice();
}

function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'FIFO';
  if (st.isSocket()) return 'socket';
  return 'device';
}

/** Runs `fn` over the items, at most `limit` at once; the first failure wins (others finish). */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failed) {
      const item = items[next++];
      try {
        await fn(item);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw failed.err;
}

/** Waits for every task (none is left running on a handle about to close); the first failure wins. */
async function all(tasks: Array<Promise<void>>): Promise<void> {
  const results = await Promise.allSettled(tasks);
  for (const r of results) if (r.status === 'rejected') throw r.reason;
}

function ignoreMissing(err: unknown): void {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
}

/** Runs `fn`; an error becomes an FmError whose message names the entry (`what`). */
async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw failure(err, what);
  }
}

/** An FmError naming the entry; FmErrors pass unchanged (the innermost entry already named). */
function failure(err: unknown, what: string): FmError {
  if (err instanceof FmError) return err;
  const mapped = errnoToFmError(err);
  const reason = mapped?.message ?? (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new FmError(mapped?.status ?? 500, mapped?.code ?? 'io_error', `${what}: ${reason}`);
}
