/**
 * A folder's names with their d_type kinds and their order by name (the shared sort key of
 * src/api), remembered per folder while the folder is unchanged, so that a listing, and above
 * all the first page of a large one, does not read and sort the whole folder again.
 *
 * A folder's ctime changes with every entry added, removed or renamed in it. The gate's stat of
 * the folder (taken before the read) is the key, and a read is only remembered when that ctime
 * is older than RACY_MS before the read started (git's "racy" rule): a change made after the
 * read then always gives the folder a different ctime, even on file systems whose timestamps
 * are coarse. Only names, kinds and the order are remembered; sizes and times are read for every
 * listing.
 *
 * A folder that can be watched (disk/folder-watch.ts) is remembered whatever its ctime, with the
 * watch set before the read: while that watch lasts, the names its events report are lstat'ed
 * and patched into the remembered names in their place in the order (`patchedFolder`, blocks
 * copied on write: name-blocks.ts), so a
 * large folder receiving creates and deletes is not read and sorted again on every request. The
 * patched names are trusted at most `patchedMs` (5 s) after their read (events inotify drops when its
 * queue overflows are not reported through libuv), then the folder is read again.
 */
import { nameSortKey } from '../../api/files.ts';
import { readKindsWithBytes } from './disk/dirents.ts';
import { type NameChange, type NameWatch, changedNames, stopWatchingNames, watchNames } from './disk/folder-watch.ts';
import { hasEscapes, nameBytes } from './disk/names.ts';
import { carrySplits, type SplitEdits } from './visible-split.ts';
import { NameBlocks } from './name-blocks.ts';
import type { Stats } from './disk/types.ts';
import { UseOrderMap } from '../use-order-map.ts';

/** A folder's entries in the order readdir gave them: parallel arrays (`bytes` only when some name is not UTF-8). */
export interface FolderNames {
  names: string[];
  /** DIRENT_* of disk/dirents.ts. */
  kinds: Uint8Array;
  bytes?: Buffer[];
  /** Indices in ascending name order, once `ascendingOrder` has sorted them. */
  ascending?: Uint32Array;
  /** Sort keys already computed (by `firstInOrder`), at their index, until `ascendingOrder` uses them. */
  keys?: string[];
}

/** A stat is trusted to tell a change only when its ctime is this much older than the read it vouches for. */
export const RACY_MS = 2000;
/** The names kept over all folders; the least recently listed folders go first. */
const MAX_NAMES = 500_000;
/** How long after their read a folder's names are patched from its watch at most (docs/decisions.md, "Performance: the first page during creates"). */
let patchedMs = 5000;

/** The bound on patched names, for tests (undefined: the default). */
export function patchNamesFor(ms: number | undefined): void {
  patchedMs = ms ?? 5000;
}

interface Kept {
  folder: FolderNames;
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  size: number;
  /** The folder's watch's changed names since the read (undefined: not watched, the ctime rule only). */
  watch?: NameWatch;
  /** Date.now() when the read started. */
  readAt: number;
}

const kept = new UseOrderMap<string, Kept>();
let keptNames = 0;

const unchanged = (k: Kept, st: Stats) => k.dev === st.dev && k.ino === st.ino && k.mtimeMs === st.mtimeMs && k.ctimeMs === st.ctimeMs && k.size === st.size;

/** The entries of the folder at `real` (whose stat the gate took); remembered ones come sorted already. */
export async function readFolderNames(real: string, st: Stats | undefined): Promise<FolderNames> {
  const hit = kept.get(real);
  // The ctime rule: a change after the read would have given the folder another ctime.
  if (hit && st && unchanged(hit, st) && hit.ctimeMs < hit.readAt - RACY_MS) {
    kept.touch(real);
    return hit.folder;
  }
  if (hit?.watch && st && hit.dev === st.dev && hit.ino === st.ino && Date.now() - hit.readAt <= patchedMs) {
    const changes = await changedNames(hit.watch, real);
    if (changes && kept.get(real) === hit) {
      if (changes.length) {
        const folder = patchedFolder(hit.folder, changes);
        keptNames += folderSize(folder) - folderSize(hit.folder);
        hit.folder = folder;
      }
      kept.touch(real);
      return hit.folder;
    }
  }
  const watch = st && watchNames(real, st); // before the read: every later change is named by an event
  const started = Date.now();
  let folder: FolderNames;
  try {
    folder = await readKindsWithBytes(real);
  } catch (err) {
    if (watch) stopWatchingNames(watch);
    throw err;
  }
  if (hit) forget(real, hit);
  if (st && (watch || st.ctimeMs < started - RACY_MS) && folder.names.length <= MAX_NAMES) {
    kept.set(real, { folder, dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, watch, readAt: started });
    keptNames += folder.names.length;
    for (const [oldest, k] of kept) {
      if (keptNames <= MAX_NAMES) break;
      forget(oldest, k);
    }
  } else if (watch) stopWatchingNames(watch);
  return folder;
}

function forget(real: string, k: Kept): void {
  if (kept.get(real) !== k) return;
  kept.delete(real);
  keptNames -= folderSize(k.folder);
  if (k.watch) stopWatchingNames(k.watch);
}

/**
 * `folder` with `changes` applied, sorted: a present name inserted in its place in
 * ascendingOrder's order (or its kind updated), a gone one removed. A new FolderNames whose
 * entries are stored in ascending order (`ascending` the identity) in blocks (name-blocks.ts),
 * so a request still reading the old one never sees the change half made; the visible splits
 * kept on the old one are carried over (visible-split.ts). Costs a binary search per change and
 * a copy of the blocks the changes fall in (of every name the first time, from a read's arrays).
 */
export function patchedFolder(folder: FolderNames, changes: readonly NameChange[]): FolderNames {
  const asc = ascendingOrder(folder);
  const blocks = folder instanceof PatchedNames ? folder.blocks : undefined;
  const nameAtRank = blocks ? (r: number) => blocks.name(r) : (r: number) => folder.names[asc[r]];
  const kindAtRank = blocks ? (r: number) => blocks.kind(r) : (r: number) => folder.kinds[asc[r]];
  const n0 = asc.length;
  const last = new Map<string, number | undefined>();
  for (const c of changes) last.set(c.name, c.kind);
  const changed = [...last.keys()].filter((name) => {
    const r = rankOf(nameAtRank, n0, name, nameSortKey(name));
    const now = r < n0 && nameAtRank(r) === name ? kindAtRank(r) : undefined;
    return now !== last.get(name);
  });
  if (changed.length === 0) return folder; // rewrites, chmods: names and kinds as they were
  const changedKeys = changed.map(nameSortKey);
  // The edits in order: old ranks removed, and entries inserted before old rank `at`.
  const edits: SplitEdits = { removed: [], insertedAt: [], inserted: [] };
  let r = 0;
  for (const c of orderByKeys(changed, changedKeys)) {
    const name = changed[c];
    const at = rankOf(nameAtRank, n0, name, changedKeys[c], r);
    r = at;
    if (at < n0 && nameAtRank(at) === name) {
      edits.removed.push(at); // replaced or removed
      r = at + 1;
    }
    const kind = last.get(name);
    if (kind === undefined) continue;
    edits.insertedAt.push(at);
    const removedBefore = edits.removed.length - (edits.removed[edits.removed.length - 1] === at ? 1 : 0);
    edits.inserted.push({ rank: at - removedBefore + edits.inserted.length, name, kind });
  }
  const withBytes = hasNameBytes(folder) || changed.some(hasEscapes);
  const patched = new PatchedNames((blocks ?? NameBlocks.inOrder(folder.names, folder.kinds, asc)).patched(edits), withBytes);
  carrySplits(folder, patched, edits);
  return patched;
}

/** Indices of `names` in ascending order of their sort keys (`keys[i]` is `nameSortKey(names[i])`), ties by the raw name. */
export function orderByKeys(names: readonly string[], keys: readonly string[]): number[] {
  const indices: number[] = new Array(names.length);
  for (let i = 0; i < names.length; i++) indices[i] = i;
  return indices.sort(byKeys(names, keys));
}

/** orderByKeys's comparator of two indices (also indexer/sliced-order.ts's, which sorts the same in slices). */
export function byKeys(names: readonly string[], keys: readonly string[]): (a: number, b: number) => number {
  return (a, b) => {
    const ka = keys[a];
    const kb = keys[b];
    if (ka !== kb) return ka < kb ? -1 : 1;
    return names[a] < names[b] ? -1 : 1; // names in a folder differ
  };
}

/**
 * The folder's indices in ascending name order (natural, case-insensitive; ties by the raw
 * name), sorted once per read: each name's sort key computed once, then an array of indices
 * sorted by a comparator over the keys. Measured against sorting tagged strings (key, name and
 * index in one string, sorted without a comparator): ~25 against ~63 ms of CPU for 100,000
 * numbered names, the same for random ones, and no string built per entry besides the key.
 */
export function ascendingOrder(folder: FolderNames): Uint32Array {
  if (folder.ascending) return folder.ascending;
  const { names } = folder;
  const n = names.length;
  const keys: string[] = folder.keys ?? new Array(n);
  folder.keys = undefined;
  for (let i = 0; i < n; i++) keys[i] ??= nameSortKey(names[i]);
  const order = Uint32Array.from(orderByKeys(names, keys));
  folder.ascending = order;
  return order;
}

/** Sorts a remembered folder's names once the current request is answered (later pages and visits use the order). */
export function sortSoon(real: string, folder: FolderNames): void {
  setImmediate(() => {
    if (!folder.ascending && kept.get(real)?.folder === folder) ascendingOrder(folder);
  });
}

/**
 * The first `k` of `indices` in listing order (ascending or exactly reversed), without sorting
 * them all: one pass keeps the best `k` so far in order. For the first page of a large folder
 * read for the first time; the folder's full order is sorted when a later page needs it.
 * The order is ascendingOrder's: by sort key, ties by the raw name (names in a folder differ).
 */
export function firstInOrder(folder: FolderNames, indices: number[], k: number, asc: boolean): number[] {
  if (k <= 0) return [];
  const { names } = folder;
  folder.keys ??= new Array(names.length);
  const folderKeys = folder.keys;
  const keys: string[] = [];
  const best: number[] = []; // positions in `keys`, best first
  const before = (a: number, b: number): boolean => {
    const ka = keys[a];
    const kb = keys[b];
    const less = ka !== kb ? ka < kb : names[indices[a]] < names[indices[b]];
    return asc ? less : !less;
  };
  for (let p = 0; p < indices.length; p++) {
    const i = indices[p];
    folderKeys[i] ??= nameSortKey(names[i]);
    keys.push(folderKeys[i]);
    if (best.length === k && !before(p, best[k - 1])) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (before(best[mid], p)) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, p);
    if (best.length > k) best.pop();
  }
  return best.map((p) => indices[p]);
}

/**
 * A patched folder (`patchedFolder`): its entries stored in ascending order, in blocks shared
 * with the versions before and after it (name-blocks.ts). The page path reads it by index
 * (`nameAt`, `nameBytesAt`); the parallel arrays of FolderNames are made at their first use (a
 * full listing's) and kept with this version.
 */
class PatchedNames implements FolderNames {
  ascending: Uint32Array;
  keys?: string[];
  #arrays?: { names: string[]; kinds: Uint8Array; bytes?: Buffer[] };

  constructor(
    readonly blocks: NameBlocks,
    /** Whether some name is (or was, since the read) not UTF-8: `bytes` is then given. */
    readonly withBytes: boolean,
  ) {
    this.ascending = identity(blocks.length);
  }

  get names(): string[] {
    return this.arrays().names;
  }

  get kinds(): Uint8Array {
    return this.arrays().kinds;
  }

  get bytes(): Buffer[] | undefined {
    return this.arrays().bytes;
  }

  private arrays(): { names: string[]; kinds: Uint8Array; bytes?: Buffer[] } {
    if (!this.#arrays) {
      const { names, kinds } = this.blocks.toArrays();
      this.#arrays = { names, kinds, bytes: this.withBytes ? names.map(nameBytes) : undefined };
    }
    return this.#arrays;
  }
}

/** How many entries the folder holds. */
export function folderSize(folder: FolderNames): number {
  return folder instanceof PatchedNames ? folder.blocks.length : folder.names.length;
}

/** The name of entry `i` (an index of the arrays, a rank of a patched folder). */
export function nameAt(folder: FolderNames, i: number): string {
  return folder instanceof PatchedNames ? folder.blocks.name(i) : folder.names[i];
}

/** Whether the folder gives names' bytes (some name is not UTF-8). */
export function hasNameBytes(folder: FolderNames): boolean {
  return folder instanceof PatchedNames ? folder.withBytes : folder.bytes !== undefined;
}

/** The exact bytes of entry `i`'s name when it is not UTF-8 (disk/names.ts `hasEscapes`), else undefined. */
export function nameBytesAt(folder: FolderNames, i: number): Buffer | undefined {
  const name = nameAt(folder, i);
  if (!hasEscapes(name)) return undefined;
  return folder instanceof PatchedNames ? nameBytes(name) : folder.bytes?.[i];
}

let identities = new Uint32Array(0);

/** 0 … n - 1, a view of one shared array (read only, as every `ascending` is): a patch under constant change allocates no new one. */
function identity(n: number): Uint32Array {
  if (identities.length < n) {
    identities = new Uint32Array(Math.max(n, Math.ceil(identities.length * 1.25)));
    for (let i = 0; i < identities.length; i++) identities[i] = i;
  }
  return identities.subarray(0, n);
}

/** The first rank (from `from`, of `n`) whose name (`nameAt`) is not before `name` (sort key `key`) in ascendingOrder's order. */
function rankOf(nameAt: (rank: number) => string, n: number, name: string, key: string, from = 0): number {
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const other = nameAt(mid);
    const otherKey = nameSortKey(other);
    if (otherKey < key || (otherKey === key && other < name)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An ascending order as it is listed: as is, or exactly reversed. */
export function inDirection(ascending: ArrayLike<number>, asc: boolean): number[] {
  const n = ascending.length;
  const order: number[] = new Array(n);
  for (let o = 0; o < n; o++) order[o] = ascending[asc ? o : n - 1 - o];
  return order;
}
