/** A page of a folder sorted by name, the fm UI's first request for a folder (web/api/listing-pages.ts). */
import type { FileInfoDto, Sorting } from '../../api/files.ts';
import type { Gate, Target } from './gate.ts';
import { DIRENT_DIR, DIRENT_LINK } from './disk/dirents.ts';
import { hasEscapes } from './disk/names.ts';
import { ascendingOrder, firstInOrder, readFolderNames, sortSoon } from './folder-names.ts';
import { entriesAt, listingJson, statEntries, visibilityIn } from './listing.ts';
import { renderedListing } from './listing-memo.ts';

/** A first page is selected rather than sorted when the folder holds at least this many times its entries. */
const SELECT_MIN = 8;

/**
 * One page of a folder sorted by name, as listing JSON. The order comes from the names and
 * their d_type kinds (links resolved through the gate, those leaving the scope left out) in one
 * pass, and only the page's entries are stat'ed: once the folder's names are known, the first
 * page of a huge folder costs little more than a small folder. numDirs, numFiles and numTotal
 * count the folder.
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
  const { names, kinds, bytes } = folder;
  const n = names.length;
  // The first page of a large folder not sorted yet: select it rather than sort everything first.
  const select = !folder.ascending && page.offset === 0 && n >= SELECT_MIN * page.limit;
  const ascending = select ? undefined : ascendingOrder(folder);
  const sub = entriesAt(target);
  const dirs: number[] = [];
  const files: number[] = [];
  for (let o = 0; o < n; o++) {
    const i = ascending ? ascending[sorting.asc ? o : n - 1 - o] : o;
    if (!shows(names[i])) continue;
    if (kinds[i] === DIRENT_LINK) {
      const resolved = gate.resolveLinkEntry(target.access, sub.prefix + names[i]);
      if (resolved === 'denied') continue;
      (resolved !== 'dangling' && resolved.stat.isDirectory() ? dirs : files).push(i);
    } else (kinds[i] === DIRENT_DIR ? dirs : files).push(i);
  }
  const total = dirs.length + files.length;
  let slice: number[];
  if (select) {
    slice = firstInOrder(folder, dirs, page.limit, sorting.asc);
    if (slice.length < page.limit) slice = slice.concat(firstInOrder(folder, files, page.limit - slice.length, sorting.asc));
    sortSoon(target.real, folder);
  } else {
    slice = [];
    for (let p = page.offset; p < Math.min(total, page.offset + page.limit); p++) slice.push(p < dirs.length ? dirs[p] : files[p - dirs.length]);
  }
  sub.names = slice.map((i) => names[i]);
  if (bytes) sub.nameBytes = slice.map((i) => (hasEscapes(names[i]) ? bytes[i] : undefined));
  const scan = await statEntries(gate, target, sub);
  scan.numDirs = dirs.length;
  scan.numFiles = files.length;
  return renderedListing(target.real, { scan, base, sorting, ...page }, () => {
    const order: number[] = [];
    for (let i = 0; i < slice.length; i++) if (scan.present[i]) order.push(i);
    return listingJson(scan, base, sorting, order, true, total);
  });
}
