/**
 * Folder listings built for 100k+ entries. One lstat per entry into typed arrays (no per-entry
 * objects that survive into the old generation); for large folders the stat calls run in two
 * worker threads while the main thread sorts by name (d_type from readdir tells folders apart);
 * the JSON is written straight from the arrays into buffers. `listFolder` (info.ts) builds
 * DTOs from the same scan.
 */

import fsp from 'node:fs/promises';
import path from 'node:path';
import type { FileInfoDto, FileType, ListingDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { PARTIAL_PREFIX } from './gate.ts';
import { goFileMode, listingType } from './types.ts';
import { KIND_DIR, KIND_FIFO, KIND_LINK, RAW_MISSING, statAll } from './stat-worker.ts';

const KIND_DANGLING = 4;

/** The entries of a folder, as parallel arrays (indices into `names`). */
export interface FolderScan {
  /** Virtual path of the folder itself. */
  virtual: string;
  names: string[];
  size: Float64Array;
  mtime: Float64Array;
  /** Go os.FileMode bits, as filebrowser sends them. */
  mode: Float64Array;
  kind: Uint8Array;
  /** 0 for entries to leave out (vanished meanwhile, links leaving the scope). */
  present: Uint8Array;
  numDirs: number;
  numFiles: number;
}

/** A folder's scan and its entries in listing order. */
export interface OrderedScan {
  scan: FolderScan;
  order: number[];
}

/**
 * Reads a folder target: hidden, denied, protected and in-progress entries are left out, links
 * are resolved (those leaving the scope left out), and the entries are put in listing order.
 */
export async function scanFolder(gate: Gate, target: Target, sorting: Sorting): Promise<OrderedScan> {
  const { access } = target;
  const checkRules = !access.rules.isEmpty;
  const absPrefix = target.real === '/' ? '/' : `${target.real}/`;
  const virtualPrefix = target.virtual === '/' ? '/' : `${target.virtual}/`;
  const own = gate.protectedNamesIn(target.real);
  const names = (await fsp.readdir(target.real)).filter(
    (name) => !name.startsWith(PARTIAL_PREFIX) && !own.has(name) && !(checkRules && !gate.visible(access, virtualPrefix + name)),
  );
  const n = names.length;
  const stats = statAll(absPrefix, names);
  // While the stats run (in the workers for large folders), sort by name.
  const byName = sorting.by !== 'size' && sorting.by !== 'modified';
  const nameOrder = byName ? sortByName(names, sorting.asc) : undefined;

  const raw = await stats;
  const scan: FolderScan = {
    virtual: target.virtual,
    names,
    size: new Float64Array(n),
    mtime: new Float64Array(n),
    mode: new Float64Array(n),
    kind: new Uint8Array(n),
    present: new Uint8Array(n),
    numDirs: 0,
    numFiles: 0,
  };
  for (let i = 0; i < n; i++) {
    let k = raw.kind[i];
    if (k === RAW_MISSING) continue; // vanished meanwhile
    let mode = raw.num[i * 3];
    let size = raw.num[i * 3 + 1];
    let mtime = raw.num[i * 3 + 2];
    if (k & KIND_LINK) {
      const resolved = gate.resolveLinkEntry(access, absPrefix + names[i]);
      if (resolved === 'denied') continue; // never show where a link leaving the scope points
      if (resolved === 'dangling') k |= KIND_DANGLING;
      else {
        ({ mode, size, mtimeMs: mtime } = resolved.stat);
        if (resolved.stat.isDirectory()) k |= KIND_DIR;
        if (resolved.stat.isFIFO()) k |= KIND_FIFO;
      }
    }
    const isDir = (k & KIND_DIR) !== 0;
    if (isDir) scan.numDirs++;
    else scan.numFiles++;
    scan.present[i] = 1;
    scan.size[i] = isDir ? 4096 : size;
    scan.mtime[i] = mtime;
    scan.mode[i] = goFileMode(mode, isDir, (k & KIND_LINK) !== 0);
    scan.kind[i] = k;
  }
  const order = nameOrder ? foldersFirst(nameOrder, scan) : sortIndices(scan, sorting);
  return { scan, order };
}

/**
 * A key whose plain string order is the natural, case-insensitive name order: lower-cased,
 * accents stripped, and each run of digits prefixed by its length so that 9 < 10.
 */
export function nameSortKey(name: string): string {
  let key = name.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(key)) key = key.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  // A loop rather than replace() with a callback: this runs for every entry of a listing.
  let out = '';
  let from = 0;
  let i = 0;
  const len = key.length;
  while (i < len) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < len && key.charCodeAt(i) >= 48 && key.charCodeAt(i) <= 57) i++;
    let digits = runStart;
    while (digits < i - 1 && key.charCodeAt(digits) === 48) digits++; // leading zeros
    // '1'..'9' for lengths 1-9, then ':' '@' 'A'… (all below the lower-case letters).
    out += key.slice(from, runStart) + String.fromCharCode(0x30 + Math.min(i - digits, 42)) + key.slice(digits, i);
    from = i;
  }
  return from === 0 ? key : out + key.slice(from);
}

/**
 * Indices sorted by name (natural, case-insensitive; asc = A→Z). Sorting strings without a
 * comparator runs entirely inside V8, several times faster than a comparator over indices:
 * each string is the sort key, the raw name (tie-break), and the index in two code units.
 */
function sortByName(names: string[], asc: boolean): number[] {
  const n = names.length;
  const tagged: string[] = new Array(n);
  for (let i = 0; i < n; i++) tagged[i] = `${nameSortKey(names[i])}\u0000${names[i]}\u0000${String.fromCharCode(i >>> 16, i & 0xffff)}`;
  tagged.sort();
  const order: number[] = new Array(n);
  for (let o = 0; o < n; o++) {
    const t = tagged[asc ? o : n - 1 - o];
    order[o] = (t.charCodeAt(t.length - 2) << 16) | t.charCodeAt(t.length - 1);
  }
  return order;
}

/** The present entries of an order, folders first, otherwise keeping the order. */
function foldersFirst(order: number[], scan: FolderScan): number[] {
  const dirs: number[] = [];
  const files: number[] = [];
  for (const i of order) {
    if (!scan.present[i]) continue;
    if (scan.kind[i] & KIND_DIR) dirs.push(i);
    else files.push(i);
  }
  return dirs.length ? dirs.concat(files) : files;
}

/** Indices of the present entries in listing order: folders first, then by size or modified (ties by name). */
function sortIndices(scan: FolderScan, sorting: Sorting): number[] {
  const { names, size, mtime, present, kind } = scan;
  const keys = names.map(nameSortKey);
  const dir = sorting.asc ? 1 : -1;
  const byName = (a: number, b: number) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka !== kb) return ka < kb ? -1 : 1;
    return names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0;
  };
  const cmp = sorting.by === 'size' ? (a: number, b: number) => (size[a] - size[b]) * dir || byName(a, b) : (a: number, b: number) => (mtime[a] - mtime[b]) * dir || byName(a, b);
  const order: number[] = [];
  for (let i = 0; i < names.length; i++) if (present[i]) order.push(i);
  order.sort((a, b) => {
    const da = kind[a] & KIND_DIR;
    const db = kind[b] & KIND_DIR;
    return da === db ? cmp(a, b) : da ? -1 : 1;
  });
  return order;
}

let isoDay = Number.NaN;
let isoDayPrefix = '';
const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * `Date#toISOString()` of a time in ms, without building a Date per entry: the date part is
 * cached per day (entries of one folder mostly share a few days), the time is arithmetic.
 */
export function isoTime(ms: number): string {
  const t = Math.floor(ms);
  const day = Math.floor(t / 86_400_000);
  if (day !== isoDay) {
    const iso = new Date(day * 86_400_000).toISOString();
    if (iso.length !== 24) return new Date(t).toISOString(); // years beyond 9999 or before 0
    isoDay = day;
    isoDayPrefix = iso.slice(0, 11);
  }
  let rem = t - day * 86_400_000;
  const h = Math.floor(rem / 3_600_000);
  rem -= h * 3_600_000;
  const m = Math.floor(rem / 60_000);
  rem -= m * 60_000;
  const sec = Math.floor(rem / 1000);
  return `${isoDayPrefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${pad3(rem - sec * 1000)}Z`;
}

function itemType(scan: FolderScan, i: number): FileType {
  const k = scan.kind[i];
  if (k & KIND_DIR) return '';
  if (k & KIND_DANGLING) return 'invalid_link';
  if (k & KIND_FIFO) return 'blob';
  return listingType(scan.names[i], scan.size[i]);
}

/** The FileInfo of entry `i` (the same fields, in the same order, as `infoFromStats`). */
export function scanItem(scan: FolderScan, i: number): FileInfoDto {
  const name = scan.names[i];
  const isDir = (scan.kind[i] & KIND_DIR) !== 0;
  return {
    path: scan.virtual === '/' ? `/${name}` : `${scan.virtual}/${name}`,
    name,
    size: scan.size[i],
    extension: isDir ? '' : path.extname(name),
    modified: isoTime(scan.mtime[i]),
    mode: scan.mode[i],
    isDir,
    isSymlink: (scan.kind[i] & KIND_LINK) !== 0,
    type: itemType(scan, i),
  };
}

/** The slice of `order` a client asked for with ?offset=&limit=. */
export function pageOf(order: number[], offset?: number, limit?: number): { page: number[]; paged: boolean } {
  if (offset === undefined && limit === undefined) return { page: order, paged: false };
  const start = offset ?? 0;
  return { page: order.slice(start, limit !== undefined ? start + limit : undefined), paged: true };
}

// Strings that can go into JSON between quotes as they are.
// eslint-disable-next-line no-control-regex
const JSON_SAFE = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const quote = (s: string) => (JSON_SAFE.test(s) ? `"${s}"` : JSON.stringify(s));

const CHUNK_BYTES = 1 << 20;

/**
 * The listing as UTF-8 JSON, byte for byte what `JSON.stringify(listing)` gives for the DTO of
 * the same scan, but written straight from the arrays into buffers.
 */
export function listingJson(scan: FolderScan, base: FileInfoDto, sorting: Sorting, order: number[], paged: boolean, total: number): Buffer {
  const prefix = scan.virtual === '/' ? '/' : `${scan.virtual}/`;
  const chunks: Buffer[] = [];
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let off = 0;
  const put = (s: string) => {
    if (off + s.length * 3 > buf.length) {
      chunks.push(buf.subarray(0, off));
      buf = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, s.length * 3));
      off = 0;
    }
    off += buf.write(s, off);
  };
  put(`${JSON.stringify(base).slice(0, -1)},"items":[`);
  for (let o = 0; o < order.length; o++) {
    const i = order[o];
    const name = scan.names[i];
    const k = scan.kind[i];
    const isDir = (k & KIND_DIR) !== 0;
    put(
      `${o ? ',' : ''}{"path":${quote(prefix + name)},"name":${quote(name)},"size":${scan.size[i]},"extension":${isDir ? '""' : quote(path.extname(name))},` +
        `"modified":"${isoTime(scan.mtime[i])}","mode":${scan.mode[i]},"isDir":${isDir},"isSymlink":${(k & KIND_LINK) !== 0},"type":"${itemType(scan, i)}"}`,
    );
  }
  put(`],"numDirs":${scan.numDirs},"numFiles":${scan.numFiles},"sorting":${JSON.stringify(sorting)}${paged ? `,"numTotal":${total}` : ''}}`);
  chunks.push(buf.subarray(0, off));
  return Buffer.concat(chunks);
}

/** The listing DTO from a scan (for callers that need objects rather than JSON text). */
export function listingFromScan(scan: FolderScan, base: FileInfoDto, sorting: Sorting, order: number[], paged: boolean, total: number): ListingDto {
  const listing: ListingDto = { ...base, items: order.map((i) => scanItem(scan, i)), numDirs: scan.numDirs, numFiles: scan.numFiles, sorting };
  if (paged) listing.numTotal = total;
  return listing;
}
