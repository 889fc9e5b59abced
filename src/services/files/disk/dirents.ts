/**
 * Reading folders and links with byte-exact names (names.ts). The fast path is Node's own
 * string reading; only a folder that shows a suspect name (U+FFFD or an escape character) is
 * read again as bytes, so valid UTF-8 folders cost nothing extra.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { decodeName, isSuspect, osPath } from './names.ts';

/** What readdir's d_type says an entry is (no stat): a folder, a symbolic link, or anything else. */
export const DIRENT_OTHER = 0;
export const DIRENT_DIR = 1;
export const DIRENT_LINK = 2;

/** The DIRENT_* kind of an entry, from its Dirent or its lstat. */
export function direntKind(e: { isDirectory(): boolean; isSymbolicLink(): boolean }): number {
  return e.isDirectory() ? DIRENT_DIR : e.isSymbolicLink() ? DIRENT_LINK : DIRENT_OTHER;
}

/**
 * The names in a folder with their d_type kinds (DIRENT_*), and every name's exact bytes when
 * some name needed the byte-exact reading (as readNamesWithBytes).
 */
export async function readKindsWithBytes(dir: string): Promise<{ names: string[]; kinds: Uint8Array; bytes?: Buffer[] }> {
  const p = osPath(dir);
  let entries: fs.Dirent<string | Buffer>[] = await fsp.readdir(p, { withFileTypes: true });
  let names = entries.map((e) => e.name as string);
  let bytes: Buffer[] | undefined;
  if (names.some(isSuspect)) {
    const raw = await fsp.readdir(p, { withFileTypes: true, encoding: 'buffer' });
    bytes = raw.map((e) => e.name);
    names = bytes.map(decodeName);
    entries = raw;
  }
  const kinds = new Uint8Array(entries.length);
  for (let i = 0; i < entries.length; i++) kinds[i] = direntKind(entries[i]);
  return { names, kinds, bytes };
}

/** Entries handed over per turn of the event loop by readKindsInBatches. */
const BATCH = 1024;

/**
 * The names and kinds of a folder whose names are all UTF-8, as readKindsWithBytes gives them,
 * read BATCH entries per turn of the event loop (a 100,000-entry folder read at once holds the
 * loop ~30-80 ms while Node makes its entries; read so, ~3 ms at most); undefined when some
 * name is suspect (names.ts: it would need the byte-exact reading).
 */
export async function readKindsInBatches(dir: string): Promise<{ names: string[]; kinds: Uint8Array } | undefined> {
  const d = await fsp.opendir(osPath(dir), { bufferSize: BATCH });
  const names: string[] = [];
  const kinds: number[] = [];
  try {
    for (let e = await d.read(); e; e = await d.read()) {
      if (isSuspect(e.name)) return undefined;
      names.push(e.name);
      kinds.push(direntKind(e));
    }
  } finally {
    await d.close();
  }
  return { names, kinds: Uint8Array.from(kinds) };
}

export function readNamesSync(dir: string): string[] {
  const p = osPath(dir);
  const names = fs.readdirSync(p);
  if (!names.some(isSuspect)) return names;
  return fs.readdirSync(p, { encoding: 'buffer' }).map(decodeName);
}

/** The entries of a folder with their types (from d_type, no stat), names in fm's string form. */
export async function readEntries(dir: string): Promise<fs.Dirent[]> {
  const p = osPath(dir);
  const entries = await fsp.readdir(p, { withFileTypes: true });
  if (!entries.some((e) => isSuspect(e.name))) return entries;
  return asStringDirents(await fsp.readdir(p, { withFileTypes: true, encoding: 'buffer' }));
}

function asStringDirents(raw: fs.Dirent<Buffer>[]): fs.Dirent[] {
  for (const d of raw) (d as unknown as { name: string }).name = decodeName(d.name);
  return raw as unknown as fs.Dirent[];
}

/** realpath with byte-exact components. */
export async function realPath(p: string): Promise<string> {
  return decodeName(await fsp.realpath(osPath(p), { encoding: 'buffer' }));
}

export function realPathSync(p: string): string {
  return decodeName(fs.realpathSync(osPath(p), { encoding: 'buffer' }));
}

/**
 * realpath(3) on this thread, as `realPath` does in the thread pool: some 4 µs of CPU against
 * 30 µs for the promise's round trip through the pool (the gate takes two per request).
 */
export function realPathNow(p: string): string {
  return decodeName(fs.realpathSync.native(osPath(p), { encoding: 'buffer' }));
}
