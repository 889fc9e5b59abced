/** A page of a folder sorted by name, the fm UI's first request for a folder (web/api/listing-pages.ts). */
import type { FileInfoDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { DIRENT_DIR, DIRENT_LINK } from './disk/dirents.ts';
import { hasEscapes } from './disk/names.ts';
import { ascendingOrder, type FolderNames, firstInOrder, readFolderNames, sortSoon } from './folder-names.ts';
import { entriesAt, listingJson, statEntries, visibilityIn, visibilityKey } from './listing.ts';
import { takeMerged, visibleSplit } from './visible-split.ts';
import { renderedListing } from './listing-memo.ts';

/** A first page is selected rather than sorted when the folder holds at least this many times its entries. */
const SELECT_MIN = 8;

/**
 * One page of a folder sorted by name, as listing JSON. The order comes from the names and
 * their d_type kinds (links resolved through the gate, those leaving the scope left out) in one
 * pass, and only the page's entries are stat'ed: once the folder's names are known, the first
 * page of a huge folder costs little more than a small folder; once they are sorted, the
 * visible split kept with them (visible-split.ts) spares the pass over every name too. numDirs,
 * numFiles and numTotal count the folder.
 */
export async function renderNamePage(
  gate: Gate,
  target: Target,
  base: FileInfoDto,
  sorting: Sorting,
  page: { offset: number; limit: number },
): Promise<Buffer> {
  const shows = visibilityIn(gate, target);
  const folder = await readFolderNames(target.real, target.stat);
  const n = folder.names.length;
  // The first page of a large folder not sorted yet: select it rather than sort everything first.
  const select = !folder.ascending && page.offset === 0 && n >= SELECT_MIN * page.limit;
  const { slice, numDirs, numFiles } = select
    ? selectedPage(gate, target, folder, shows, sorting, page.limit)
    : sortedPage(gate, target, folder, visibilityKey(gate, target), shows, sorting, page);
  const { names, bytes } = folder;
  const sub = entriesAt(target);
  sub.names = slice.map((i) => names[i]);
  if (bytes) sub.nameBytes = slice.map((i) => (hasEscapes(names[i]) ? bytes[i] : undefined));
  const scan = await statEntries(gate, target, sub);
  scan.numDirs = numDirs;
  scan.numFiles = numFiles;
  const total = numDirs + numFiles;
  return renderedListing(target.real, { scan, base, sorting, ...page }, () => {
    const order: number[] = [];
    for (let i = 0; i < slice.length; i++) if (scan.present[i]) order.push(i);
    return listingJson(scan, base, sorting, order, true, total);
  });
}

/** The page's folder indices in listing order, and the folder's visible counts. */
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

/** A page of a sorted folder: its visible split (kept with the names) read by position, links resolved now. */
function sortedPage(
  gate: Gate,
  target: Target,
  folder: FolderNames,
  key: string,
  shows: (name: string) => boolean,
  sorting: Sorting,
  page: { offset: number; limit: number },
): PageSlice {
  const ascending = ascendingOrder(folder);
  const split = visibleSplit(folder, ascending, key, shows);
  const linkDirs: number[] = [];
  const linkFiles: number[] = [];
  const { prefix } = entriesAt(target);
  for (const r of split.links) {
    const kind = linkKind(gate, target, prefix, folder.names[ascending[r]]);
    if (kind !== 'denied') (kind === 'dir' ? linkDirs : linkFiles).push(r);
  }
  const numDirs = split.dirs.length + linkDirs.length;
  const numFiles = split.files.length + linkFiles.length;
  const { offset, limit } = page;
  const fromDirs = takeMerged(split.dirs, linkDirs, offset, Math.min(limit, numDirs - offset), sorting.asc);
  const fromFiles = takeMerged(split.files, linkFiles, Math.max(0, offset - numDirs), limit - fromDirs.length, sorting.asc);
  const slice = fromDirs.concat(fromFiles).map((r) => ascending[r]);
  return { slice, numDirs, numFiles };
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
