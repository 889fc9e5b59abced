/**
 * Scoped folder handles: the one way fm changes anything under a user's folder. Node has no
 * openat or unlinkat, but on Linux an open folder's descriptor is also a path,
 * /proc/self/fd/<fd>, and the kernel resolves `/proc/self/fd/<fd>/<name>` inside that exact
 * folder, wherever its old path leads meanwhile. A DirHandle opens a folder once, checks where
 * it really is (readlink of the descriptor) against the real path the gate decided on, then
 * names entries relative to it: a folder renamed away or swapped for a symlink after the
 * check cannot redirect an operation. Children are opened with O_NOFOLLOW relative to their
 * parent, so a recursive walk never leaves the tree it started in.
 *
 * Every operation on a name also asks the scope whether that real location may be touched
 * (the rules on the real path, fm's own files), so a decision cannot go stale between the
 * gate's check and the write.
 *
 * Without /proc (not Linux) a handle names entries by its real path and re-checks, right
 * before each operation, that the path still is that folder; a swap between that check and
 * the operation stays possible there (docs/decisions.md, "Trust: one door to the disk").
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../../errors.ts';
import { readEntries, realPath } from './dirents.ts';
import { decodeName, displayName, hasEscapes, nameBytes, osPath } from './names.ts';
import type { PartialJournal } from './partials.ts';
import type { Dirent, FileHandle, Stats } from './types.ts';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

/** Where handles may go, as the gate decided it for one access. */
export interface Scope {
  /** Absolute real path that nothing may leave. */
  readonly rootReal: string;
  /** Whether a real location inside the root may be touched (rules on its real path, fm's own files). */
  permits(real: string): boolean;
  /** Records temporary files while they exist, so a crash leaves none behind for good. */
  readonly partials?: PartialJournal;
}

let procOverride: boolean | undefined;
let procFound: boolean | undefined;

/** Whether descriptors can be named through /proc/self/fd (Linux). */
export function hasProcFd(): boolean {
  if (procOverride !== undefined) return procOverride;
  procFound ??= fs.existsSync('/proc/self/fd');
  return procFound;
}

/** Tests only: pretend /proc is missing (false) or restore detection (undefined). */
export function setProcFdForTests(value: boolean | undefined): void {
  procOverride = value;
}

/** True when `child` is `parent` or below it (absolute real paths). */
export function isInside(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || child.startsWith(`${parent}/`);
}

/** The real path of an open descriptor (Linux), decoded; `undefined` when /proc is missing. */
async function descriptorPath(fd: number): Promise<string | undefined> {
  if (!hasProcFd()) return undefined;
  return decodeName(await fsp.readlink(`/proc/self/fd/${fd}`, { encoding: 'buffer' }));
}

/**
 * Checks that an open descriptor is at `expected`: throws 404 when it was deleted meanwhile and
 * 403 when it is somewhere else (it was reached through a path that changed under us).
 */
export async function checkDescriptorAt(fh: FileHandle, expected: string): Promise<void> {
  const where = await descriptorPath(fh.fd);
  if (where === undefined) {
    const now = await realPath(expected).catch(() => undefined);
    if (now === expected) return;
    if (now === undefined) throw new NotFoundError(`${displayName(path.basename(expected))} disappeared`);
    throw new ForbiddenError(`${displayName(path.basename(expected))} changed while it was being opened`);
  }
  if (where === expected) return;
  if (where === `${expected} (deleted)`) throw new NotFoundError(`${displayName(path.basename(expected))} disappeared`);
  throw new ForbiddenError(`${displayName(path.basename(expected))} changed while it was being opened`);
}

/** Checks that an open descriptor lies inside `rootReal` (reads, where the exact place may be a link's target). */
export async function checkDescriptorInside(fh: FileHandle, rootReal: string): Promise<void> {
  let where = await descriptorPath(fh.fd).catch(() => undefined);
  if (where === undefined) return; // No /proc: the O_NOFOLLOW open and the gate's realpath checks stand.
  if (where.endsWith(' (deleted)')) where = where.slice(0, -' (deleted)'.length);
  if (!isInside(rootReal, where)) throw new ForbiddenError('the path changed while it was being opened');
}

export class DirHandle {
  private closed = false;
  /**
   * Operations started and not yet settled. The descriptor is closed only once none is left:
   * its number names the folder in their paths, and a number freed early could already name
   * another folder when a queued operation runs.
   */
  private pending = 0;
  private drained?: () => void;

  private constructor(
    private readonly fh: FileHandle,
    /** Absolute real path of this folder (checked when it was opened). */
    readonly real: string,
    readonly scope: Scope,
  ) {}

  /**
   * Opens the folder at `real` (an absolute real path inside the scope's root) and checks that
   * the descriptor really is there: 404 when it does not exist, 403 when it is a link or was
   * reached through one that changed, 409 when it is not a folder.
   */
  static async open(real: string, scope: Scope): Promise<DirHandle> {
    if (!isInside(scope.rootReal, real)) throw new ForbiddenError('the path leads outside your scope');
    const fh = await openDir(osPath(real), real);
    return DirHandle.adopt(fh, real, scope);
  }

  private static async adopt(fh: FileHandle, real: string, scope: Scope): Promise<DirHandle> {
    try {
      await checkDescriptorAt(fh, real);
    } catch (err) {
      await fh.close().catch(() => {});
      throw err;
    }
    return new DirHandle(fh, real, scope);
  }

  /**
   * Runs `op` on the path node:fs takes for `name` in this folder, after checking that the
   * scope permits its real location (and, without /proc, that this folder is still where it
   * was). Not an async function: one fewer promise per entry in walks over many thousands.
   */
  private on<T>(name: string, op: (p: string | Buffer) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`folder handle ${this.real} used after close`));
    if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
      return Promise.reject(new BadRequestError(`invalid name "${displayName(name)}"`));
    }
    const real = this.realOf(name);
    if (!this.scope.permits(real)) return Promise.reject(new ForbiddenError(`access to ${displayName(name)} is denied`));
    if (!hasProcFd()) return this.recheck().then(() => op(osPath(real)));
    const prefix = `/proc/self/fd/${this.fh.fd}/`;
    return this.track(op(hasEscapes(name) ? Buffer.concat([Buffer.from(prefix), nameBytes(name)]) : prefix + name));
  }

  private track<T>(running: Promise<T>): Promise<T> {
    this.pending++;
    const settled = () => {
      if (--this.pending === 0) this.drained?.();
    };
    running.then(settled, settled);
    return running;
  }

  private async recheck(): Promise<void> {
    const now = await realPath(this.real).catch(() => undefined);
    if (now !== this.real) throw new ForbiddenError(`the folder ${displayName(path.basename(this.real))} changed during the operation`);
  }

  /** Absolute real path of an entry of this folder. */
  realOf(name: string): string {
    return this.real === '/' ? `/${name}` : `${this.real}/${name}`;
  }

  /** Opens a child folder (never through a symlink); 404 when missing, 409 when not a folder. */
  async child(name: string): Promise<DirHandle> {
    const real = this.realOf(name);
    const fh = await this.on(name, (p) => openDir(p, real));
    return DirHandle.adopt(fh, real, this.scope);
  }

  /** Creates a child folder with exactly `mode` (umask aside) and opens it; EEXIST when something is there. */
  async makeChild(name: string, mode: number): Promise<DirHandle> {
    await this.on(name, (p) => fsp.mkdir(p, { mode }));
    const child = await this.child(name);
    try {
      await child.fh.chmod(mode);
    } catch (err) {
      await child.close();
      throw err;
    }
    return child;
  }

  /** The child folder `name`, created with `mode` when missing (a folder made meanwhile is fine). */
  async ensureChild(name: string, mode: number): Promise<DirHandle> {
    try {
      return await this.makeChild(name, mode);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return this.child(name);
    }
  }

  /** The entries of this folder, names byte-exact (types from d_type, no stat). */
  async entries(): Promise<Dirent[]> {
    if (this.closed) throw new Error(`folder handle ${this.real} used after close`);
    if (hasProcFd()) return this.track(readEntries(`/proc/self/fd/${this.fh.fd}`));
    await this.recheck();
    return readEntries(this.real);
  }

  lstat(name: string): Promise<Stats> {
    return this.on(name, (p) => fsp.lstat(p));
  }

  /** lstat, or undefined when nothing is there. */
  lstatOrMissing(name: string): Promise<Stats | undefined> {
    return this.on(name, (p) =>
      fsp.lstat(p).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return undefined;
        throw err;
      }),
    );
  }

  /** A symlink's target, byte-exact. */
  async readlink(name: string): Promise<string> {
    return decodeName(await this.on(name, (p) => fsp.readlink(p, { encoding: 'buffer' })));
  }

  /** Opens a file in this folder; a symlink in its place is never followed (ELOOP). */
  openFile(name: string, flags: number, mode?: number): Promise<FileHandle> {
    return this.on(name, (p) => fsp.open(p, flags | O_NOFOLLOW, mode));
  }

  /** Sets an entry's modification time (its access time stays); a symlink's own times, never its target's. */
  async setModified(name: string, mtime: Date): Promise<void> {
    const st = await this.lstat(name);
    await this.on(name, (p) => fsp.lutimes(p, st.atime, mtime));
  }

  unlink(name: string): Promise<void> {
    return this.on(name, (p) => fsp.unlink(p));
  }

  rmdir(name: string): Promise<void> {
    return this.on(name, (p) => fsp.rmdir(p));
  }

  symlink(target: string, name: string): Promise<void> {
    return this.on(name, (p) => fsp.symlink(osPath(target), p));
  }

  /** rename(2) from this folder to `to` (replaces a file or an empty folder there). */
  rename(name: string, to: DirHandle, toName: string): Promise<void> {
    return this.on(name, (from) => to.on(toName, (dest) => fsp.rename(from, dest)));
  }

  /** link(2): EEXIST when `toName` exists, so it never replaces anything. */
  link(name: string, to: DirHandle, toName: string): Promise<void> {
    return this.on(name, (from) => to.on(toName, (dest) => fsp.link(from, dest)));
  }

  /** rename(2) of a file fm owns (a finished upload in its staging folder) onto `name`. */
  renameFrom(ownPath: string, name: string): Promise<void> {
    return this.on(name, (p) => fsp.rename(ownPath, p));
  }

  /** link(2) of a file fm owns onto `name`; EEXIST when `name` exists. */
  linkFrom(ownPath: string, name: string): Promise<void> {
    return this.on(name, (p) => fsp.link(ownPath, p));
  }

  /** Stats of this folder itself (its device tells moves across file systems apart). */
  async stat(): Promise<Stats> {
    return this.fh.stat();
  }

  /** Makes the folder's entries durable (after a rename or a creation in it). */
  async sync(): Promise<void> {
    await this.fh.sync();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pending > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.fh.close();
  }
}

/** Runs `fn` with the folder at `real` open, closing it afterwards. */
export async function withDir<T>(real: string, scope: Scope, fn: (dir: DirHandle) => Promise<T>): Promise<T> {
  const dir = await DirHandle.open(real, scope);
  try {
    return await fn(dir);
  } finally {
    await dir.close();
  }
}

/**
 * open(2) of a folder, never through a final symlink: a link there is a 403 (it was swapped in
 * after the gate looked, or would lead elsewhere), another non-folder a 409.
 */
async function openDir(p: string | Buffer, real: string): Promise<FileHandle> {
  try {
    return await fsp.open(p, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ELOOP' && code !== 'ENOTDIR') throw err;
    // Linux answers ENOTDIR, not ELOOP, for a link opened with O_DIRECTORY | O_NOFOLLOW.
    const isLink = await fsp.lstat(p).then(
      (st) => st.isSymbolicLink(),
      () => false,
    );
    if (isLink) throw new ForbiddenError(`${displayName(path.basename(real))} is a symbolic link; it is not followed`);
    throw new ConflictError(`${displayName(path.basename(real))} is not a folder`);
  }
}
