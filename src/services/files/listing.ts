/**
 * Folder listings built for 100k+ entries. One lstat per entry into typed arrays (no per-entry
 * objects that survive into the old generation); for large folders the stat calls run in two
 * worker threads while the main thread sorts by name (d_type from readdir tells folders apart);
 * the JSON is written straight from the arrays into buffers. `listFolder` (info.ts) builds
 * DTOs from the same scan.
 */
import path from 'node:path';
import type { FileInfoDto, FileType, ListingDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { PARTIAL_PREFIX } from './gate.ts';
import { TEXT_CONTENT_LIMIT, goFileMode, listingType, typeFromName } from './types.ts';
import { readNamesWithBytes } from './disk/dirents.ts';
import {
  KIND_DIR,
  KIND_FIFO,
  KIND_LINK,
  PARALLEL_MIN,
  RAW_MISSING,
  RENDERED_DIR,
  RENDERED_FILE,
  RENDERED_LINK,
  renderInWorkers,
  statAll,
  type EntryPaths,
} from './disk/listing-worker.ts';
import { hasEscapes, nameBytes } from './disk/names.ts';
import { lstatOrUndefined } from './disk/lookup.ts';
import { nameSortKey } from '../../api/files.ts';
import { itemJson, makeIsoTime, makeQuote } from './listing-render.ts';

/** `Date#toISOString()` of a time in ms, without a Date per call (see listing-render.ts). */
export const isoTime = makeIsoTime();
const quote = makeQuote();

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

/**
 * The entries a listing may show: not hidden or denied by rules, not fm's own, not in-progress
 * uploads. Names that are not UTF-8 are listed too (escaped, disk/names.ts), with their bytes.
 */
export async function visibleEntries(gate: Gate, target: Target): Promise<EntryPaths> {
  const { access } = target;
  const checkRules = !access.rules.isEmpty;
  const virtualPrefix = target.virtual === '/' ? '/' : `${target.virtual}/`;
  const own = gate.protectedNamesIn(target.real);
  const shows = (name: string) => !name.startsWith(PARTIAL_PREFIX) && !own.has(name) && !(checkRules && !gate.visible(access, virtualPrefix + name));
  const prefix = target.real === '/' ? '/' : `${target.real}/`;
  const entries: EntryPaths = { prefix, names: [] };
  if (hasEscapes(prefix)) entries.prefixBytes = nameBytes(prefix);
  const { names, bytes } = await readNamesWithBytes(target.real);
  if (!bytes) {
    entries.names = names.filter(shows);
    return entries;
  }
  entries.nameBytes = [];
  for (let i = 0; i < names.length; i++) {
    if (!shows(names[i])) continue;
    entries.names.push(names[i]);
    entries.nameBytes.push(hasEscapes(names[i]) ? bytes[i] : undefined);
  }
  return entries;
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
export async function scanFolder(gate: Gate, target: Target, sorting: Sorting, read?: EntryPaths): Promise<OrderedScan> {
  const { access } = target;
  const entries = read ?? (await visibleEntries(gate, target));
  const { names, prefix: absPrefix } = entries;
  const n = names.length;
  const stats = statAll(entries);
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
  const cmp =
    sorting.by === 'size'
      ? (a: number, b: number) => (size[a] - size[b]) * dir || byName(a, b)
      : (a: number, b: number) => (mtime[a] - mtime[b]) * dir || byName(a, b);
  const order: number[] = [];
  for (let i = 0; i < names.length; i++) if (present[i]) order.push(i);
  order.sort((a, b) => {
    const da = kind[a] & KIND_DIR;
    const db = kind[b] & KIND_DIR;
    return da === db ? cmp(a, b) : da ? -1 : 1;
  });
  return order;
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

const CHUNK_BYTES = 1 << 20;

/**
 * The listing as UTF-8 JSON, byte for byte what `JSON.stringify(listing)` gives for the DTO of
 * the same scan, but written straight from the arrays into buffers.
 */
export function listingJson(scan: FolderScan, base: FileInfoDto, sorting: Sorting, order: number[], paged: boolean, total: number): Buffer {
  const prefix = scan.virtual === '/' ? '/' : `${scan.virtual}/`;
  const chunks: Buffer[] = [];
  // Sized for the page (a fresh 1 MiB per small listing made the garbage collector run often).
  let buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, 4096 + order.length * 256));
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
      (o ? ',' : '') +
        itemJson(
          quote,
          prefix + name,
          name,
          scan.size[i],
          isDir ? '' : path.extname(name),
          isoTime(scan.mtime[i]),
          scan.mode[i],
          isDir,
          (k & KIND_LINK) !== 0,
          itemType(scan, i),
        ),
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

/** Listing types by extension and by name, computed once here for the workers. */
function typeTables(names: string[]): { extTypes: Map<string, FileType | undefined>; nameTypes: Map<string, FileType | undefined> } {
  const extTypes = new Map<string, FileType | undefined>();
  const nameTypes = new Map<string, FileType | undefined>();
  for (const name of names) {
    const dot = name.lastIndexOf('.');
    if (dot > 0 && dot < name.length - 1) {
      const ext = name.slice(dot).toLowerCase();
      if (!extTypes.has(ext)) extTypes.set(ext, typeFromName(`x${ext}`));
    } else nameTypes.set(name, typeFromName(name));
  }
  return { extTypes, nameTypes };
}

/** A symbolic link of a listing resolved through the gate and rendered; undefined when it must not show. */
function renderLink(gate: Gate, target: Target, name: string): { json: Buffer; isDir: boolean } | undefined {
  const abs = (target.real === '/' ? '/' : `${target.real}/`) + name;
  const resolved = gate.resolveLinkEntry(target.access, abs);
  if (resolved === 'denied') return undefined; // never show where a link leaving the scope points
  const st = resolved === 'dangling' ? lstatOrUndefined(abs) : resolved.stat;
  if (!st) return undefined;
  const isDir = resolved !== 'dangling' && st.isDirectory();
  const size = isDir ? 4096 : st.size;
  const type: FileType = isDir ? '' : resolved === 'dangling' ? 'invalid_link' : st.isFIFO() ? 'blob' : listingType(name, size);
  const vpath = (target.virtual === '/' ? '/' : `${target.virtual}/`) + name;
  const json = itemJson(quote, vpath, name, size, isDir ? '' : path.extname(name), isoTime(st.mtimeMs), goFileMode(st.mode, isDir, true), isDir, true, type);
  return { json: Buffer.from(json), isDir };
}

/**
 * The JSON of a large folder sorted by name: the worker threads lstat and render the entries
 * while this thread sorts the names; then folders go first and the bytes are copied. Undefined
 * when the folder is small, sorted by size or date, or no worker is usable (the caller then
 * uses scanFolder).
 */
export async function renderLargeListing(
  gate: Gate,
  target: Target,
  base: FileInfoDto,
  sorting: Sorting,
  offset?: number,
  limit?: number,
  read?: EntryPaths,
): Promise<Buffer | undefined> {
  if (sorting.by === 'size' || sorting.by === 'modified') return undefined;
  const entries = read ?? (await visibleEntries(gate, target));
  const { names } = entries;
  if (names.length < PARALLEL_MIN) return undefined;
  const rendering = renderInWorkers(
    {
      vprefix: target.virtual === '/' ? '/' : `${target.virtual}/`,
      ...typeTables(names),
      textLimit: TEXT_CONTENT_LIMIT,
    },
    entries,
  );
  if (!rendering) return undefined;
  const byName = sortByName(names, sorting.asc); // meanwhile, here
  const parts = await rendering;

  // Where each entry's bytes are: part p, index i - from; links rendered here.
  const partOf = new Uint8Array(names.length);
  for (let p = 0; p < parts.length; p++) partOf.fill(p, parts[p].from, parts[p].from + parts[p].result.kind.length);
  const frags = parts.map((p) => Buffer.from(p.result.frag.buffer, p.result.frag.byteOffset, p.result.frag.byteLength));
  const links = new Map<number, { json: Buffer; isDir: boolean }>();
  const dirs: number[] = [];
  const files: number[] = [];
  for (const i of byName) {
    const part = parts[partOf[i]];
    const k = part.result.kind[i - part.from];
    if (k === RENDERED_DIR) dirs.push(i);
    else if (k === RENDERED_FILE) files.push(i);
    else if (k === RENDERED_LINK) {
      const link = renderLink(gate, target, names[i]);
      if (!link) continue;
      links.set(i, link);
      (link.isDir ? dirs : files).push(i);
    }
  }
  let items = dirs.concat(files);
  const total = items.length;
  const paged = offset !== undefined || limit !== undefined;
  if (paged) items = items.slice(offset ?? 0, limit !== undefined ? (offset ?? 0) + limit : undefined);

  const head = Buffer.from(`${JSON.stringify(base).slice(0, -1)},"items":[`);
  const tail = Buffer.from(`],"numDirs":${dirs.length},"numFiles":${files.length},"sorting":${JSON.stringify(sorting)}${paged ? `,"numTotal":${total}` : ''}}`);
  const span = (i: number): [Buffer, number, number] => {
    const link = links.get(i);
    if (link) return [link.json, 0, link.json.length];
    const part = parts[partOf[i]];
    return [frags[partOf[i]], part.result.fragOff[i - part.from], part.result.fragOff[i - part.from + 1]];
  };
  let size = head.length + tail.length + Math.max(0, items.length - 1);
  for (const i of items) {
    const [, from, to] = span(i);
    size += to - from;
  }
  const out = Buffer.allocUnsafe(size);
  let off = head.copy(out, 0);
  for (let n = 0; n < items.length; n++) {
    if (n) out[off++] = 0x2c; // ','
    const [buf, from, to] = span(items[n]);
    off += buf.copy(out, off, from, to);
  }
  tail.copy(out, off);
  return out;
}
