/**
 * Folder listings built for 100k+ entries. The names and their name order come from
 * folder-names.ts (remembered while the folder is unchanged); one lstat per entry into typed
 * arrays (no per-entry objects that survive into the old generation); the JSON is written
 * straight from the arrays into buffers. Large folders are rendered in worker threads
 * (listing-large.ts); a page of a folder sorted by name stats only the entries of the page
 * (listing-page.ts). `listFolder` (info.ts) builds DTOs from the same scan.
 */
import path from 'node:path';
import type { FileInfoDto, FileType, ListingDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { PARTIAL_PREFIX } from './gate.ts';
import { goFileMode, listingType } from './types.ts';
import { KIND_DIR, KIND_FIFO, KIND_LINK, RAW_MISSING, type EntryPaths } from './disk/listing-worker.ts';
import { statEntriesOf } from './disk/folder-watch.ts';
import { hasEscapes, nameBytes } from './disk/names.ts';
import { ascendingOrder, inDirection, readFolderNames } from './folder-names.ts';
import { itemJson, makeIsoTime, makeQuote } from './listing-render.ts';

/** `Date#toISOString()` of a time in ms, without a Date per call (see listing-render.ts). */
export const isoTime = makeIsoTime();
const quote = makeQuote();

export const KIND_DANGLING = 4;

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

/** The visible entries of a folder with their d_type kinds (DIRENT_*). */
export interface VisibleEntries extends EntryPaths {
  kinds: Uint8Array;
  /** The indices in ascending name order (sorted at the first call when the folder was just read). */
  ascending(): ArrayLike<number> & Iterable<number>;
}

/** Whether a name of the target folder may be listed: not hidden or denied by rules, not fm's own, not an in-progress upload. */
export function visibilityIn(gate: Gate, target: Target): (name: string) => boolean {
  const { access } = target;
  const checkRules = !access.rules.isEmpty;
  const virtualPrefix = target.virtual === '/' ? '/' : `${target.virtual}/`;
  const own = gate.protectedNamesIn(target.real);
  return (name) => !name.startsWith(PARTIAL_PREFIX) && !own.has(name) && !(checkRules && !gate.visible(access, virtualPrefix + name));
}

/**
 * Everything `visibilityIn` decides by, as a string: two targets with the same key show the same
 * names of the same folder (the rules and hidden dotfiles, the paths the rules see, fm's own names).
 */
export function visibilityKey(gate: Gate, target: Target): string {
  const { access } = target;
  return JSON.stringify([access.rules.key, access.rulePrefix, access.aliasPrefix ?? null, target.virtual, [...gate.protectedNamesIn(target.real)]]);
}

/** The absolute folder path of the target's entries, with its bytes when it is not UTF-8. */
export function entriesAt(target: Target): EntryPaths {
  const prefix = target.real === '/' ? '/' : `${target.real}/`;
  return hasEscapes(prefix) ? { prefix, names: [], prefixBytes: nameBytes(prefix) } : { prefix, names: [] };
}

/**
 * The entries a listing may show (visibilityIn). Names that are not UTF-8 are listed too
 * (escaped, disk/names.ts), with their bytes.
 */
export async function visibleEntries(gate: Gate, target: Target): Promise<VisibleEntries> {
  const shows = visibilityIn(gate, target);
  const folder = await readFolderNames(target.real, target.stat);
  const { names, kinds, bytes } = folder;
  const keep: number[] = [];
  for (let i = 0; i < names.length; i++) if (shows(names[i])) keep.push(i);
  // Mostly every name shows: then the remembered arrays serve as they are (nothing changes them).
  const all = keep.length === names.length;
  const ascending = () => {
    if (all) return ascendingOrder(folder); // read only: the remembered order itself
    const at = new Int32Array(names.length).fill(-1); // folder index → index in the entries
    for (let k = 0; k < keep.length; k++) at[keep[k]] = k;
    const out: number[] = [];
    for (const i of ascendingOrder(folder)) if (at[i] >= 0) out.push(at[i]);
    return out;
  };
  let keptKinds = kinds;
  if (!all) {
    keptKinds = new Uint8Array(keep.length);
    for (let k = 0; k < keep.length; k++) keptKinds[k] = kinds[keep[k]];
  }
  const entries: VisibleEntries = { ...entriesAt(target), names: all ? names : keep.map((i) => names[i]), kinds: keptKinds, ascending };
  if (bytes) entries.nameBytes = keep.map((i) => (hasEscapes(names[i]) ? bytes[i] : undefined));
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
export async function scanFolder(gate: Gate, target: Target, sorting: Sorting, read?: VisibleEntries): Promise<OrderedScan> {
  const entries = read ?? (await visibleEntries(gate, target));
  const scan = await statEntries(gate, target, entries);
  return { scan, order: listingOrder(scan, entries, sorting) };
}

/** The present entries of a scan of `entries` in listing order. */
export function listingOrder(scan: FolderScan, entries: VisibleEntries, sorting: Sorting): number[] {
  const byName = sorting.by !== 'size' && sorting.by !== 'modified';
  const ascending = entries.ascending();
  return byName ? foldersFirst(inDirection(ascending, sorting.asc), scan) : sortIndices(scan, sorting, ascending);
}

/** One lstat per entry, or its result kept while the folder is watched (links resolved through the gate), into a scan. */
export async function statEntries(gate: Gate, target: Target, entries: EntryPaths): Promise<FolderScan> {
  const { access } = target;
  const { names, prefix: absPrefix } = entries;
  const n = names.length;
  const raw = await statEntriesOf(entries, target.real, target.stat);
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
  return scan;
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
function sortIndices(scan: FolderScan, sorting: Sorting, ascending: ArrayLike<number>): number[] {
  const { names, size, mtime, present, kind } = scan;
  const dir = sorting.asc ? 1 : -1;
  // Ties go by name, ascending: by rank in the name order.
  const rank = new Uint32Array(names.length);
  for (let r = 0; r < ascending.length; r++) rank[ascending[r]] = r;
  const cmp =
    sorting.by === 'size'
      ? (a: number, b: number) => (size[a] - size[b]) * dir || rank[a] - rank[b]
      : (a: number, b: number) => (mtime[a] - mtime[b]) * dir || rank[a] - rank[b];
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
