/** A page of a folder sorted by name, the fm UI's first request for a folder (web/api/listing-pages.ts). */
import type { FileInfoDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { DIRENT_DIR, DIRENT_LINK } from './disk/dirents.ts';
import { hasEscapes, nameBytes } from './disk/names.ts';
import { ascendingOrder, type FolderNames, firstInOrder, hasNameBytes, nameAt, nameBytesAt, readFolderNames, sortSoon } from './folder-names.ts';
import { entriesAt, listingJson, statEntries, visibilityIn, visibilityKey } from './listing.ts';
import { takeMerged, type VisibleSplit, visibleSplit } from './visible-split.ts';
import { directPage, indexedSplit, type Listed, type ListedFolder } from './listing-indexed.ts';
import { renderedListing } from './listing-memo.ts';

/** A first page is selected rather than sorted when the folder holds at least this many times its entries. */
const SELECT_MIN = 8;

/**
 * One page of a folder sorted by name, as listing JSON. The order comes from the names and
 * their d_type kinds (links resolved through the gate, those leaving the scope left out) in one
 * pass, and only the page's entries are stat'ed: once the folder's names are known, the first
 * page of a huge folder costs little more than a small folder; once they are sorted, the
 * visible split kept with them (visible-split.ts) spares the pass over every name too. A folder
 * the live index provably holds as it is now (`listed`, listing-indexed.ts) is not read at all:
 * its names come in order from the index. numDirs, numFiles and numTotal count the folder.
 */
export async function renderNamePage(
  gate: Gate,
  target: Target,
  base: FileInfoDto,
  sorting: Sorting,
  page: { offset: number; limit: number },
  listed?: ListedFolder,
): Promise<Buffer> {
  const shows = visibilityIn(gate, target);
  const indexed = listed && target.stat ? listed(target.real, target.stat) : undefined;
  const { names, bytes, numDirs, numFiles } = indexed
    ? indexedPage(gate, target, indexed, shows, sorting, page)
    : await diskPage(gate, target, shows, sorting, page);
  const sub = entriesAt(target);
  sub.names = names;
  if (bytes) sub.nameBytes = bytes;
  const scan = await statEntries(gate, target, sub);
  scan.numDirs = numDirs;
  scan.numFiles = numFiles;
  const total = numDirs + numFiles;
  return renderedListing(target.real, { scan, base, sorting, ...page }, () => {
    const order: number[] = [];
    for (let i = 0; i < names.length; i++) if (scan.present[i]) order.push(i);
    return listingJson(scan, base, sorting, order, true, total);
  });
}

/** The page's names in listing order (with their bytes where some name is not UTF-8), and the folder's visible counts. */
interface PageNames {
  names: string[];
  bytes?: Array<Buffer | undefined>;
  numDirs: number;
  numFiles: number;
}

/** A page from the folder's names as read from the disk (or remembered, folder-names.ts). */
async function diskPage(
  gate: Gate,
  target: Target,
  shows: (name: string) => boolean,
  sorting: Sorting,
  page: { offset: number; limit: number },
): Promise<PageNames> {
  const folder = await readFolderNames(target.real, target.stat);
  // The first page of a large folder not sorted yet: select it rather than sort everything first.
  // (A patched folder is sorted, and read by index only: its arrays are not made for a page.)
  const select = !folder.ascending && page.offset === 0 && folder.names.length >= SELECT_MIN * page.limit;
  let picked: PageSlice;
  if (select) picked = selectedPage(gate, target, folder, shows, sorting, page.limit);
  else {
    const ascending = ascendingOrder(folder);
    const split = visibleSplit(folder, ascending, visibilityKey(gate, target), shows);
    const ranks = pageOfSplit(gate, target, split, (r) => nameAt(folder, ascending[r]), sorting, page);
    picked = { ...ranks, slice: ranks.slice.map((r) => ascending[r]) };
  }
  const { slice, numDirs, numFiles } = picked;
  const pageBytes = hasNameBytes(folder) ? slice.map((i) => nameBytesAt(folder, i)) : undefined;
  return { names: slice.map((i) => nameAt(folder, i)), bytes: pageBytes, numDirs, numFiles };
}

/** A page from the live index's children of a folder it provably holds as it is (listing-indexed.ts). */
function indexedPage(
  gate: Gate,
  target: Target,
  listed: Listed,
  shows: (name: string) => boolean,
  sorting: Sorting,
  page: { offset: number; limit: number },
): PageNames {
  // No rule, no hidden dotfiles, none of fm's own files here: every child shows (the scan never
  // indexes uploads in progress, and any entry added later forgets the folder's mark).
  const seesAll = target.access.rules.isEmpty && gate.protectedNamesIn(target.real).size === 0;
  const direct = directPage(listed, seesAll, sorting.asc, page);
  if (direct) return withBytes(direct, 0, listed.children);
  const { store } = listed;
  const split = indexedSplit(listed, target.real, target.stat!, visibilityKey(gate, target), seesAll ? undefined : shows);
  const ranks = pageOfSplit(gate, target, split, (r) => store.name(split.ids[r]), sorting, page);
  return withBytes(
    ranks.slice.map((r) => store.name(split.ids[r])),
    ranks.numDirs,
    ranks.numFiles,
  );
}

/** Page names from the index (fm's string form), with the bytes of those that are not UTF-8. */
function withBytes(names: string[], numDirs: number, numFiles: number): PageNames {
  const bytes = names.some(hasEscapes) ? names.map((n) => (hasEscapes(n) ? nameBytes(n) : undefined)) : undefined;
  return { names, bytes, numDirs, numFiles };
}

/** A page's entries (as ranks, or folder indices when selected) in listing order, and the folder's visible counts. */
interface PageSlice {
  slice: number[];
  numDirs: number;
  numFiles: number;
}

/** Where a link entry of the target folder leads for this access: a folder, elsewhere, or out of sight. */
function linkKind(gate: Gate, target: Target, prefix: string, name: string): 'dir' | 'file' | 'denied' {
  const resolved = gate.resolveLinkEntry(target.access, prefix + name);
  if (resolved === 'denied') return 'denied';
  return resolved !== 'dangling' && resolved.stat.isDirectory() ? 'dir' : 'file';
}

/** A page of a sorted folder's visible split, read by position: its links resolved now (`nameAt`: the name of a rank). */
function pageOfSplit(
  gate: Gate,
  target: Target,
  split: Omit<VisibleSplit, 'key'>,
  nameAt: (rank: number) => string,
  sorting: Sorting,
  page: { offset: number; limit: number },
): PageSlice {
  const linkDirs: number[] = [];
  const linkFiles: number[] = [];
  const { prefix } = entriesAt(target);
  for (const r of split.links) {
    const kind = linkKind(gate, target, prefix, nameAt(r));
    if (kind !== 'denied') (kind === 'dir' ? linkDirs : linkFiles).push(r);
  }
  const numDirs = split.dirs.length + linkDirs.length;
  const numFiles = split.files.length + linkFiles.length;
  const { offset, limit } = page;
  const fromDirs = takeMerged(split.dirs, linkDirs, offset, Math.min(limit, numDirs - offset), sorting.asc);
  const fromFiles = takeMerged(split.files, linkFiles, Math.max(0, offset - numDirs), limit - fromDirs.length, sorting.asc);
  return { slice: fromDirs.concat(fromFiles), numDirs, numFiles };
}

/** The first page of a folder not sorted yet, selected in one pass (the folder is sorted once the request is answered). */
function selectedPage(gate: Gate, target: Target, folder: FolderNames, shows: (name: string) => boolean, sorting: Sorting, limit: number): PageSlice {
  const { names, kinds } = folder;
  const { prefix } = entriesAt(target);
  const dirs: number[] = [];
  const files: number[] = [];
  for (let i = 0; i < names.length; i++) {
    if (!shows(names[i])) continue;
    if (kinds[i] === DIRENT_LINK) {
      const kind = linkKind(gate, target, prefix, names[i]);
      if (kind !== 'denied') (kind === 'dir' ? dirs : files).push(i);
    } else (kinds[i] === DIRENT_DIR ? dirs : files).push(i);
  }
  let slice = firstInOrder(folder, dirs, limit, sorting.asc);
  if (slice.length < limit) slice = slice.concat(firstInOrder(folder, files, limit - slice.length, sorting.asc));
  sortSoon(target.real, folder);
  return { slice, numDirs: dirs.length, numFiles: files.length };
}
