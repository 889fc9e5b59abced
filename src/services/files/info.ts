/**
 * FileInfo for single entries and folder listings. Listings use one lstat per entry and never
 * read file contents; a single-file GET may sniff the first bytes and include text content.
 */
import path from 'node:path';
import { nameSortKey, type FileInfoDto, type FileType, type ListingDto, type Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { readEntries } from './disk/dirents.ts';
import type { Dirent, Stats } from './disk/types.ts';
import { openForRead } from './io.ts';
import { isoTime, listingFromScan, listingJson, listingOrder, pageOf, scanFolder, statEntries, visibleEntries } from './listing.ts';
import { renderedListing } from './listing-memo.ts';
import { renderNamePage } from './listing-page.ts';
import type { ListedFolder } from './listing-indexed.ts';
import { renderLargeListing } from './listing-large.ts';
import { TEXT_CONTENT_LIMIT, goFileMode, listingType, looksLikeText, typeFromName } from './types.ts';
import { baseName, parentOf } from './paths.ts';

function modifiedOf(st: Stats): string {
  return isoTime(st.mtimeMs);
}

function extensionOf(name: string, isDir: boolean): string {
  return isDir ? '' : path.extname(name);
}

/** The FileInfo of an entry from its stats (no content reads). */
export function infoFromStats(virtual: string, name: string, lst: Stats, st: Stats | undefined, type?: FileType): FileInfoDto {
  const isSymlink = lst.isSymbolicLink();
  const target = st ?? lst;
  const isDir = target.isDirectory();
  const fifo = target.isFIFO();
  return {
    path: virtual,
    name,
    size: isDir ? 4096 : target.size,
    extension: extensionOf(name, isDir),
    modified: modifiedOf(target),
    mode: goFileMode(target.mode, isDir, isSymlink),
    isDir,
    isSymlink,
    type: type ?? (isDir ? '' : isSymlink && !st ? 'invalid_link' : fifo ? 'blob' : listingType(name, target.size)),
  };
}

export interface ListOptions {
  sorting: Sorting;
  offset?: number;
  limit?: number;
  /** Folders the live index holds as they are now: a page by name is taken from it (listing-indexed.ts). */
  listed?: ListedFolder;
}

/** Lists a folder target: visible entries only, links checked, sorted; paged when asked. */
export async function listFolder(gate: Gate, target: Target, opts: ListOptions): Promise<ListingDto> {
  const { scan, order } = await scanFolder(gate, target, opts.sorting);
  const { page, paged } = pageOf(order, opts.offset, opts.limit);
  return listingFromScan(scan, folderBase(target), opts.sorting, page, paged, order.length);
}

/** Pages up to this many entries are stat'ed on the main thread (larger ones as a whole listing). */
const SMALL_PAGE = 2000;

/**
 * The same listing as UTF-8 JSON, written without building an object per entry. A small page of
 * a folder sorted by name stats only its own entries; large folders are rendered in the workers.
 */
export async function listFolderJson(gate: Gate, target: Target, opts: ListOptions): Promise<Buffer> {
  const base = folderBase(target);
  const byName = opts.sorting.by !== 'size' && opts.sorting.by !== 'modified';
  if (byName && opts.limit !== undefined && opts.limit <= SMALL_PAGE) {
    return renderNamePage(gate, target, base, opts.sorting, { offset: opts.offset ?? 0, limit: opts.limit }, opts.listed);
  }
  const entries = await visibleEntries(gate, target);
  const large = await renderLargeListing(gate, target, base, opts.sorting, opts.offset, opts.limit, entries);
  if (large) return large;
  const scan = await statEntries(gate, target, entries);
  return renderedListing(target.real, { scan, base, ...opts }, () => {
    const order = listingOrder(scan, entries, opts.sorting);
    const { page, paged } = pageOf(order, opts.offset, opts.limit);
    return listingJson(scan, base, opts.sorting, page, paged, order.length);
  });
}

/**
 * A folder listing as an object, with each sub-folder's total size (`dirSize`) when
 * `dirSizes` knows it (from the search index: nothing is walked at request time).
 */
export async function listFolderWithSizes(gate: Gate, target: Target, opts: ListOptions, dirSizes: Map<string, number> | undefined): Promise<ListingDto> {
  const { scan, order } = await scanFolder(gate, target, opts.sorting);
  const { page, paged } = pageOf(order, opts.offset, opts.limit);
  const listing = listingFromScan(scan, folderBase(target), opts.sorting, page, paged, order.length);
  if (dirSizes) {
    for (const item of listing.items) {
      const size = item.isDir && !item.isSymlink ? dirSizes.get(item.name) : undefined;
      if (size !== undefined) item.dirSize = size;
    }
  }
  return listing;
}

function folderBase(target: Target): FileInfoDto {
  return infoFromStats(target.virtual, baseName(target.virtual), target.lstat!, target.stat);
}

/**
 * Folders first; then by name (natural, case-insensitive; asc = A→Z), size or modified.
 * `mtimes` (parallel to `items`, in ms) spares parsing the `modified` strings.
 */
export function sortItems(items: FileInfoDto[], sorting: Sorting, mtimes?: number[]): void {
  const dir = sorting.asc ? 1 : -1;
  const decorated = items.map((item, i) => ({ item, key: nameSortKey(item.name), mtime: mtimes ? mtimes[i] : Date.parse(item.modified) }));
  type D = (typeof decorated)[number];
  const byName = (a: D, b: D) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.item.name < b.item.name ? -1 : a.item.name > b.item.name ? 1 : 0);
  let cmp: (a: D, b: D) => number;
  if (sorting.by === 'size') cmp = (a, b) => (a.item.size - b.item.size) * dir || byName(a, b);
  else if (sorting.by === 'modified') cmp = (a, b) => (a.mtime - b.mtime) * dir || byName(a, b);
  else cmp = (a, b) => byName(a, b) * dir;
  decorated.sort((a, b) => (a.item.isDir === b.item.isDir ? cmp(a, b) : a.item.isDir ? -1 : 1));
  for (let i = 0; i < decorated.length; i++) items[i] = decorated[i].item;
}

export interface FileInfoOptions {
  /** Include text content (the user may download). */
  withContent: boolean;
  /** The user may modify (text vs textImmutable). */
  canModify: boolean;
}

/** Full info of one file: sniffed type, text content, subtitles for videos. */
export async function fileInfo(gate: Gate, target: Target, opts: FileInfoOptions): Promise<FileInfoDto> {
  const name = baseName(target.virtual);
  if (target.isSymlink && !target.stat) return infoFromStats(target.virtual, name, target.lstat!, undefined, 'invalid_link');
  const st = target.stat!;
  let type: FileType = st.isFIFO() || !st.isFile() ? 'blob' : (typeFromName(name) ?? 'blob');
  let sample: Buffer | undefined;
  const mayBeText = st.isFile() && st.size <= TEXT_CONTENT_LIMIT && (type === 'text' || typeFromName(name) === undefined);
  if (mayBeText) {
    const fh = await openForRead(target);
    try {
      sample = Buffer.alloc(Math.min(512, st.size));
      await fh.read(sample, 0, sample.length, 0);
      type = looksLikeText(sample) ? 'text' : type === 'text' && st.size === 0 ? 'text' : 'blob';
      if (type === 'text' && opts.withContent) {
        const content = await fh.readFile({ encoding: 'utf8' });
        const info = infoFromStats(target.virtual, name, target.lstat!, st, opts.canModify ? 'text' : 'textImmutable');
        return { ...info, content };
      }
    } finally {
      await fh.close();
    }
  }
  if (type === 'text' && st.size > TEXT_CONTENT_LIMIT) type = 'blob';
  if (type === 'text' && !opts.canModify) type = 'textImmutable';
  const info = infoFromStats(target.virtual, name, target.lstat!, st, type);
  if (type === 'video') {
    const subtitles = await findSubtitles(gate, target);
    if (subtitles.length) info.subtitles = subtitles;
  }
  return info;
}

const SUBTITLE_EXT = /\.(vtt|srt|ass|ssa)$/i;
const SUBTITLE_DIRS = new Set(['sub', 'subs', 'subtitles']);

/** Sibling `<base>*.vtt|srt|ass|ssa` files and everything subtitle-like in sibling sub/subs/subtitles folders. */
export async function findSubtitles(gate: Gate, target: Target): Promise<string[]> {
  const { access } = target;
  const dirVirtual = parentOf(target.virtual);
  const dirAbs = path.dirname(target.abs);
  const stem = path.basename(target.virtual, path.extname(target.virtual));
  const out: string[] = [];
  const join = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);
  let entries: Dirent[];
  try {
    entries = await readEntries(dirAbs);
  } catch {
    return out;
  }
  for (const e of entries) {
    if (e.isFile() && SUBTITLE_EXT.test(e.name) && e.name.startsWith(stem)) {
      const v = join(dirVirtual, e.name);
      if (gate.visible(access, v)) out.push(v);
    } else if (e.isDirectory() && SUBTITLE_DIRS.has(e.name.toLowerCase())) {
      const subVirtual = join(dirVirtual, e.name);
      if (!gate.visible(access, subVirtual)) continue;
      const inner = await readEntries(path.join(dirAbs, e.name)).catch(() => [] as Dirent[]);
      for (const f of inner) {
        const v = join(subVirtual, f.name);
        if (f.isFile() && SUBTITLE_EXT.test(f.name) && gate.visible(access, v)) out.push(v);
      }
    }
  }
  return out.sort();
}
