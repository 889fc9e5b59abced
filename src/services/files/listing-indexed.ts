/**
 * A folder's visible split taken from the live search index instead of the disk: the scan read
 * every folder of SORTED_MIN entries or more in name order (files/disk/tree-scan.ts) and the
 * store marks such a folder listed with the stat it had when it was read, until any change to
 * its children (indexer/store.ts `markListed`). While the folder's stat is that one, its children
 * in the index are its entries on the disk, in the order `ascendingOrder` gives them, so the first
 * page of a folder never listed before needs no readdir and no sort.
 */
import type { EntryStore, ListedCounts } from '../indexer/store.ts';
import type { Stats } from './disk/types.ts';
import type { VisibleSplit } from './visible-split.ts';
import { UseOrderMap } from '../use-order-map.ts';

/** A folder the live index provably holds as it is now, with the counts of its children as the scan read them. */
export interface Listed extends ListedCounts {
  store: EntryStore;
  id: number;
}

/** The index's folder at `real` when it provably holds that folder's entries now (indexer/index.ts `listedFolder`). */
export type ListedFolder = (real: string, st: Stats) => Listed | undefined;

/**
 * The page of a listed folder of files only (no folders, no links), to a view that sees every
 * entry, in ascending order: its children from `offset` on, in the index's order, which is the
 * listing's. Costs the entries skipped and taken, whatever the folder's size. Undefined when the
 * folder or the request is not such.
 */
export function directPage(listed: Listed, seesAll: boolean, asc: boolean, page: { offset: number; limit: number }): string[] | undefined {
  if (!seesAll || !asc || listed.dirs || listed.links) return undefined;
  const { store } = listed;
  const names: string[] = [];
  let c = store.firstChild(listed.id);
  for (let p = 0; c !== -1 && p < page.offset; p++) c = store.nextSibling(c);
  for (; c !== -1 && names.length < page.limit; c = store.nextSibling(c)) names.push(store.name(c));
  return names;
}

/** A split of a listed folder's children, with the index id of each rank. */
export interface IndexedSplit extends VisibleSplit {
  ids: Int32Array;
}

/** Where a folder's splits came from: valid while the index's store, the folder's id and its stat are these. */
interface Kept {
  store: EntryStore;
  id: number;
  ctimeMs: number;
  splits: IndexedSplit[];
}

/** Splits kept per folder (views), and children kept over all folders (the least recently listed go first). */
const PER_FOLDER = 4;
const MAX_ENTRIES = 500_000;
const kept = new UseOrderMap<string, Kept>();
let keptEntries = 0;

/**
 * The visible folders, files and links of a listed folder at `real`, by rank in its name order,
 * kept per view (`key`, listing.ts `visibilityKey`) while the folder is listed with the same stat.
 * `shows` is left out when it can only refuse in-progress uploads and fm's own files: the scan
 * never indexes those, and any entry added later forgets the folder's mark.
 */
export function indexedSplit(listed: Listed, real: string, st: Stats, key: string, shows: ((name: string) => boolean) | undefined): IndexedSplit {
  const { store, id } = listed;
  let k = kept.get(real);
  if (k && (k.store !== store || k.id !== id || k.ctimeMs !== st.ctimeMs)) {
    forget(real, k);
    k = undefined;
  }
  const hit = k?.splits.find((s) => s.key === key);
  if (hit) {
    kept.touch(real);
    return hit;
  }
  const split = walk(store, id, key, shows);
  if (split.ids.length > MAX_ENTRIES) return split;
  if (!k) {
    k = { store, id, ctimeMs: st.ctimeMs, splits: [] };
    kept.set(real, k);
  }
  k.splits.push(split);
  keptEntries += split.ids.length;
  if (k.splits.length > PER_FOLDER) keptEntries -= k.splits.shift()!.ids.length;
  for (const [oldest, o] of kept) {
    if (keptEntries <= MAX_ENTRIES || o === k) break;
    forget(oldest, o);
  }
  return split;
}

function forget(real: string, k: Kept): void {
  kept.delete(real);
  for (const s of k.splits) keptEntries -= s.ids.length;
}

function walk(store: EntryStore, dir: number, key: string, shows: ((name: string) => boolean) | undefined): IndexedSplit {
  const ids: number[] = [];
  const dirs: number[] = [];
  const files: number[] = [];
  const links: number[] = [];
  for (let c = store.firstChild(dir), r = 0; c !== -1; c = store.nextSibling(c), r++) {
    ids.push(c);
    if (shows && !shows(store.name(c))) continue;
    (store.isLink(c) ? links : store.isDir(c) ? dirs : files).push(r);
  }
  return { key, ids: Int32Array.from(ids), dirs: Uint32Array.from(dirs), files: Uint32Array.from(files), links: Uint32Array.from(links) };
}
