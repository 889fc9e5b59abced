/**
 * Placing a file: the one function every write path uses (PUT, POST, a finished tus upload,
 * each file of a copy or a move across file systems). The bytes go to a temporary file beside
 * the target, created with O_EXCL in a folder handle (handle.ts), are fsynced, and the file is
 * then linked (no override: an existing name is a 409, decided atomically) or renamed (override)
 * onto the name. A failed or aborted write leaves no file and never truncates the old one.
 * Hooks and events belong to the callers, around this.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { PassThrough, Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestError, ConflictError } from '../../../errors.ts';
import type { DirHandle } from './handle.ts';
import { displayName } from './names.ts';
import { tempIn } from './partials.ts';
import type { FileHandle, Stats } from './types.ts';

const { O_WRONLY, O_CREAT, O_EXCL, O_RDONLY } = fs.constants;
const COPY_BUFFER = 1 << 20;

/** Where a placed file's bytes come from. */
export type PlaceSource =
  /** A request body, streamed; `onBytes` sees each chunk's size and may throw to abort (limits). */
  | { kind: 'stream'; stream: Readable; onBytes?: (n: number) => void }
  | { kind: 'bytes'; data: Buffer | string }
  /** An open regular file (a copy's source); read to its end. */
  | { kind: 'file'; file: FileHandle }
  /**
   * A complete file in fm's own staging folder (a finished upload): moved in with one link or
   * rename when it is on the same file system, else copied; it is gone afterwards either way.
   */
  | { kind: 'staged'; path: string };

export interface PlaceOptions {
  /** Replace an existing file or link (never a folder); otherwise an existing name is a 409. */
  override: boolean;
  /** Mode of the new file (exactly; umask aside). */
  mode: number;
  /** A replaced file keeps its own mode (saves, uploads); copies take `mode` (the source's). */
  keepReplacedMode?: boolean;
  /** fsync the folder after the rename (default true; tree copies sync each folder once). */
  syncFolder?: boolean;
}

export interface Placed {
  /** Stats of the placed file. */
  stat: Stats;
  /** Bytes written (for a copy: compare with the source). */
  bytes: number;
}

/** Writes `source` to `name` in `dir` atomically. See the module comment. */
export async function placeFile(dir: DirHandle, name: string, source: PlaceSource, opts: PlaceOptions): Promise<Placed> {
  if (source.kind === 'staged') {
    const moved = await moveStaged(dir, name, source.path, opts);
    if (moved) return moved;
  }
  const temp = await tempIn(dir);
  let fh: FileHandle | undefined;
  let linked = false;
  let leftBehind = false;
  try {
    fh = await dir.openFile(temp.name, O_WRONLY | O_CREAT | O_EXCL, opts.mode);
    const bytes = await writeSource(fh, source);
    await fh.chmod(await modeFor(dir, name, opts));
    await fh.sync();
    const stat = await fh.stat();
    await fh.close();
    fh = undefined;
    await finish(dir, temp.name, name, opts.override);
    linked = true;
    if (opts.syncFolder !== false) await dir.sync();
    if (source.kind === 'staged') await fsp.rm(source.path, { force: true });
    return { stat, bytes };
  } finally {
    await fh?.close().catch(() => {});
    if (!linked) {
      await dir.unlink(temp.name).catch((err: NodeJS.ErrnoException) => {
        leftBehind = err.code !== 'ENOENT';
      });
    }
    temp.release(leftBehind);
  }
}

/** The mode the placed file gets: a replaced file's own when asked to keep it, else `opts.mode`. */
async function modeFor(dir: DirHandle, name: string, opts: PlaceOptions): Promise<number> {
  if (!opts.override || !opts.keepReplacedMode) return opts.mode;
  const existing = await dir.lstatOrMissing(name);
  return existing?.isFile() ? existing.mode & 0o7777 : opts.mode;
}

/** Moves the finished temporary file onto `name`: rename when replacing, link + unlink (no clobber) otherwise. */
async function finish(dir: DirHandle, temp: string, name: string, override: boolean): Promise<void> {
  if (override) {
    const existing = await dir.lstatOrMissing(name);
    if (existing?.isDirectory()) throw new ConflictError(`a folder named ${displayName(name)} exists`, 'exists');
    await dir.rename(temp, dir, name);
    return;
  }
  try {
    await dir.link(temp, dir, name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictError(`${displayName(name)} already exists`, 'exists');
    throw err;
  }
  await dir.unlink(temp);
}

/**
 * A staged file on the target's file system is moved in directly (it is already complete and
 * durable). Returns undefined when it lies on another file system (the caller copies it).
 */
async function moveStaged(dir: DirHandle, name: string, staged: string, opts: PlaceOptions): Promise<Placed | undefined> {
  const fh = await fsp.open(staged, O_RDONLY);
  let stat: Stats;
  try {
    await fh.chmod(await modeFor(dir, name, opts));
    stat = await fh.stat();
  } finally {
    await fh.close();
  }
  try {
    if (opts.override) {
      const existing = await dir.lstatOrMissing(name);
      if (existing?.isDirectory()) throw new ConflictError(`a folder named ${displayName(name)} exists`, 'exists');
      await dir.renameFrom(staged, name);
    } else {
      try {
        await dir.linkFrom(staged, name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ConflictError(`${displayName(name)} already exists`, 'exists');
        throw err;
      }
      await fsp.rm(staged, { force: true });
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EXDEV') return undefined;
    throw err;
  }
  if (opts.syncFolder !== false) await dir.sync();
  return { stat, bytes: stat.size };
}

/** Writes the source into the temporary file; returns the number of bytes. */
async function writeSource(fh: FileHandle, source: PlaceSource): Promise<number> {
  switch (source.kind) {
    case 'bytes': {
      await fh.writeFile(source.data);
      return Buffer.byteLength(source.data);
    }
    case 'stream': {
      let bytes = 0;
      const count = (n: number) => {
        bytes += n;
        source.onBytes?.(n);
      };
      await pipeline(detached(source.stream), byteCounter(count), handleWriter(fh));
      return bytes;
    }
    case 'file':
      return copyDescriptor(source.file, fh);
    case 'staged': {
      const from = await fsp.open(source.path, O_RDONLY);
      try {
        return await copyDescriptor(from, fh);
      } finally {
        await from.close();
      }
    }
  }
}

/** Copies an open file to its end into another; returns the bytes copied. */
async function copyDescriptor(from: FileHandle, to: FileHandle): Promise<number> {
  const size = (await from.stat()).size;
  // Small files take one read into a buffer of their size (plus one byte to see the end).
  const buf = Buffer.allocUnsafe(Math.min(COPY_BUFFER, size + 1));
  let total = 0;
  for (;;) {
    const { bytesRead } = await from.read(buf, 0, buf.length, total);
    if (bytesRead === 0) return total;
    let off = 0;
    while (off < bytesRead) {
      const { bytesWritten } = await to.write(buf, off, bytesRead - off, total + off);
      off += bytesWritten;
    }
    total += bytesRead;
  }
}

/**
 * A Writable over a FileHandle that leaves the handle open. (`fh.createWriteStream` with
 * `autoClose: false` keeps a reference on the handle, so a later `fh.close()` never settles.)
 */
export function handleWriter(fh: FileHandle): Writable {
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
