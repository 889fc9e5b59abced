/**
 * Reading many small files at once for archives: one job opens, checks, reads and closes a
 * batch of files with synchronous calls, so that it can run in a worker thread (thousands of
 * small files cost the main thread mostly the overhead of its asynchronous file calls). For a
 * zip the same job deflates what it read: the bytes then cross between threads once, deflated,
 * rather than read here, sent to the main thread, copied into a batch for a deflate worker and
 * sent back (a hop per batch fewer, each a wait for a thread on a loaded machine).
 */
import type fs from 'node:fs';
import type zlib from 'node:zlib';

export interface SmallReadJob {
  /**
   * Real paths of the files, in order, as node:fs takes them (`osPath`: bytes for names that are
   * not UTF-8; they reach a worker as Uint8Arrays, which node:fs takes alike).
   */
  paths: Array<string | Buffer>;
  /** The access root's real path (`osPath`): an open file found outside it is left out. */
  root: string | Buffer;
  /** Files larger than this are not read (status NOT_READ): the caller streams them. */
  maxSize: number;
  /** Once this many bytes are read, the rest of the batch is NOT_READ. */
  maxBytes: number;
  /**
   * Deflate (raw, at this level, for a zip) each file read, except where `store[i]` is 1 (already
   * compressed formats); a file whose deflate is not smaller is kept as read.
   */
  deflate?: { level: number; store: Uint8Array };
}

export const SMALL_LEFT_OUT = 0;
export const SMALL_READ = 1;
export const SMALL_NOT_READ = 2;

export interface SmallReadResult {
  /** SMALL_* per path. */
  status: Uint8Array;
  /** [mode, mtimeMs, bytes] per path (for SMALL_READ). */
  num: Float64Array;
  /** File i's bytes (deflated when method[i] is 8) are data[off[i] .. off[i + 1]). */
  data: Uint8Array;
  off: Uint32Array;
  /** With `deflate`: each file's CRC-32 and zip method (8 deflated, 0 as read). */
  crc?: Uint32Array;
  method?: Uint8Array;
}

/** Self-contained (no imports used at run time): its source is also shipped to the workers. */
export function readSmallBatch(d: { fs: typeof fs; Buffer: typeof Buffer; zlib?: typeof zlib }, job: SmallReadJob): SmallReadResult {
  const f = d.fs;
  const n = job.paths.length;
  const status = new Uint8Array(n);
  const num = new Float64Array(n * 3);
  const off = new Uint32Array(n + 1);
  const chunks: Buffer[] = [];
  const pack = job.deflate && d.zlib ? { ...job.deflate, zlib: d.zlib, crc: new Uint32Array(n), method: new Uint8Array(n) } : undefined;
  let total = 0;
  let read = 0;
  // Where a descriptor points is compared as bytes: names need not be UTF-8.
  const root = d.Buffer.from(job.root);
  const rootSlash = root[root.length - 1] === 0x2f ? root : d.Buffer.concat([root, d.Buffer.from('/')]);
  const deleted = d.Buffer.from(' (deleted)');
  const flags = f.constants.O_RDONLY | f.constants.O_NOFOLLOW | f.constants.O_NONBLOCK;
  for (let i = 0; i < n; i++) {
    off[i] = total;
    if (read >= job.maxBytes) {
      status[i] = 2; // SMALL_NOT_READ
      continue;
    }
    let fd = -1;
    try {
      fd = f.openSync(job.paths[i], flags);
      // Where the descriptor really points (a parent swapped for a link after the gate's check).
      let where: Buffer | undefined;
      try {
        where = f.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'buffer' });
      } catch {
        where = undefined; // no /proc: the O_NOFOLLOW open and the gate's checks stand
      }
      if (where !== undefined) {
        if (where.length > deleted.length && where.subarray(where.length - deleted.length).equals(deleted))
          where = where.subarray(0, where.length - deleted.length);
        const inside = where.equals(root) || (where.length >= rootSlash.length && where.subarray(0, rootSlash.length).equals(rootSlash));
        if (!inside) continue; // SMALL_LEFT_OUT
      }
      const st = f.fstatSync(fd);
      if (!st.isFile()) continue;
      if (st.size > job.maxSize) {
        status[i] = 2; // SMALL_NOT_READ
        continue;
      }
      // At most the size seen by fstat, even if the file grows meanwhile.
      const buf = d.Buffer.allocUnsafe(st.size);
      let filled = 0;
      while (filled < st.size) {
        const got = f.readSync(fd, buf, filled, st.size - filled, filled);
        if (got === 0) break;
        filled += got;
      }
      let out = buf.subarray(0, filled);
      if (pack) {
        pack.crc[i] = pack.zlib.crc32(out);
        const deflated = pack.store[i] || filled === 0 ? undefined : pack.zlib.deflateRawSync(out, { level: pack.level });
        if (deflated && deflated.length < filled) {
          out = deflated;
          pack.method[i] = 8;
        }
      }
      chunks.push(out);
      total += out.length;
      read += filled;
      num[i * 3] = st.mode;
      num[i * 3 + 1] = st.mtimeMs;
      num[i * 3 + 2] = filled;
      status[i] = 1; // SMALL_READ
    } catch {
      status[i] = 0; // vanished, swapped for a link, unreadable: SMALL_LEFT_OUT
    } finally {
      if (fd >= 0) {
        try {
          f.closeSync(fd);
        } catch {
          // already closed
        }
      }
    }
  }
  off[n] = total;
  // A buffer of its own (never the shared pool), since it is transferred to the main thread.
  const data = d.Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const c of chunks) at += c.copy(data, at);
  const result: SmallReadResult = { status, num, data: new Uint8Array(data.buffer, data.byteOffset, total), off };
  if (pack) {
    result.crc = pack.crc;
    result.method = pack.method;
  }
  return result;
}
