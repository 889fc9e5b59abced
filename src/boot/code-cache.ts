/**
 * The file of V8's code cache for fm's CommonJS build (script.ts): where it lives, and a header
 * that ties it to one bundle and one Node, checked with its length and CRC-32 before V8 sees the
 * data (V8 checks its own version and flags, but not the data's integrity in release builds).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

/** What a cache is valid for: the bundle's content hash, Node's version and architecture, and Node's flags (V8 rejects a cache made under other flags). */
export interface CacheIdentity {
  bundle: string;
  node: string;
  arch: string;
  flags: string;
}

interface CacheHeader extends CacheIdentity {
  length: number;
  crc32: number;
}

/** How many caches the folder keeps (one per bundle and Node; others are from older builds). */
const KEPT = 4;

/** `$XDG_CACHE_HOME/fm/code-cache`, else `~/.cache/fm/code-cache`: the user's own folder, never the shared temporary one. */
export function codeCacheFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'fm', 'code-cache');
  try {
    return path.join(os.homedir(), '.cache', 'fm', 'code-cache');
  } catch {
    return undefined;
  }
}

export function identityOf(bundleHash: string): CacheIdentity {
  return { bundle: bundleHash, node: process.version, arch: process.arch, flags: [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ') };
}

/** One file name per identity. */
export function cacheFileName(id: CacheIdentity): string {
  return `${crypto.createHash('sha256').update(JSON.stringify(id)).digest('hex').slice(0, 32)}.bin`;
}

/** A JSON header line, then V8's data. */
export function encodeCache(id: CacheIdentity, data: Buffer): Buffer {
  const header: CacheHeader = { ...id, length: data.length, crc32: zlib.crc32(data) };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]);
}

/** V8's data when the file is whole and made for `id`; undefined otherwise. */
export function decodeCache(file: Buffer, id: CacheIdentity): Buffer | undefined {
  const end = file.indexOf(0x0a);
  if (end < 0 || end > 4096) return undefined;
  let header: Partial<CacheHeader>;
  try {
    header = JSON.parse(file.subarray(0, end).toString('utf8'));
  } catch {
    return undefined;
  }
  if (header.bundle !== id.bundle || header.node !== id.node || header.arch !== id.arch || header.flags !== id.flags) return undefined;
  const data = file.subarray(end + 1);
  if (data.length !== header.length || zlib.crc32(data) !== header.crc32) return undefined;
  return data;
}

/** The cache in `folder` for `id`, if there is a valid one (read into `block` when it is large enough: see readWhole). */
export function readCache(folder: string, id: CacheIdentity, block?: Buffer): Buffer | undefined {
  try {
    return decodeCache(readWhole(path.join(folder, cacheFileName(id)), block), id);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache for `id` whole or not at all (a temporary file renamed over it), and removes
 * the oldest caches beyond the few kept. Returns false when it could not: fm then runs without.
 */
export function writeCache(folder: string, id: CacheIdentity, data: Buffer): boolean {
  const file = path.join(folder, cacheFileName(id));
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, encodeCache(id, data), { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    try {
      fs.rmSync(temp, { force: true });
    } catch {
      // The folder is not there or not a folder: no temporary file either.
    }
    return false;
  }
  pruneOldCaches(folder);
  return true;
}

function pruneOldCaches(folder: string): void {
  try {
    const caches = fs
      .readdirSync(folder)
      .filter((name) => name.endsWith('.bin'))
      .map((name) => ({ file: path.join(folder, name), mtime: fs.statSync(path.join(folder, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of caches.slice(KEPT)) fs.rmSync(old.file, { force: true });
  } catch {
    // Another start pruned at the same time: nothing to do.
  }
}

/** More than malloc's largest mmap threshold (32 MiB): see readWhole. */
const MAPPED = 33 << 20;

/** A block readWhole can read into: the loader reads the bundle and then its code cache into the same one. */
export function readingBlock(): Buffer {
  return Buffer.alloc(MAPPED);
}

/**
 * Reads one of fm's own files whole into a buffer of at least 33 MiB, the file's bytes a view of
 * it: `block` when the file fits in it (the view is then valid until the block's next read), else
 * a new one. glibc's malloc maps blocks from 128 KiB up and, when one is freed, raises that
 * threshold to its size, and the threshold for giving a thread's arena back to twice that: reading
 * the 3.4 MB bundle and its 1.3 MB code cache with readFileSync left them at 3.4 and 6.8 MB for
 * the life of the process, so the search index's scan workers (files/disk/tree-scan.ts) left
 * ~5 MiB each in arenas never trimmed after they exit, and blocks under 3.4 MB came from malloc's
 * heap. A block of more than 32 MiB is mapped whatever the threshold and never moves it when
 * freed; only the pages read into become resident. (The index's columns follow the same rule:
 * services/indexer/columns.ts.) One block for both files, not one each: V8 counts a Buffer's
 * memory as external, and two such blocks (66 MiB) passed its 64 MiB soft limit, which started an
 * incremental marking that a mark-compact finished before "listening on".
 */
export function readWhole(file: string, block?: Buffer): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = block && block.length > size ? block : Buffer.alloc(Math.max(MAPPED, size + 1));
    let n = 0;
    // Until the end, in case the file grew since fstat (the extra byte tells).
    for (let got = 1; got > 0 && n < buf.length; n += got) got = fs.readSync(fd, buf, n, buf.length - n, null);
    return buf.subarray(0, n);
  } finally {
    fs.closeSync(fd);
  }
}
