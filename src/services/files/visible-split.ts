/**
 * A sorted folder's visible entries split into folders, files and links, by rank in the name
 * order, kept with the folder's remembered names (folder-names.ts) per visibility: a later visit
 * to a large folder then reads its page by position instead of testing every name again.
 *
 * A split lives on the FolderNames it was made from, which the folder's next change replaces, so
 * it is never older than the names. When the names are patched (folder-names.ts `patchedFolder`),
 * the splits are carried over to the new names (`carrySplits`): ranks shifted past the edits, the
 * removed ones dropped, the inserted ones added where the split's own visibility shows them. It is kept per `visibilityKey` (listing.ts: the rules, the
 * paths they see and fm's own names), so one user's split never serves another view. Links are
 * only listed here: where they lead (a folder, a file, nowhere, out of the scope) can change
 * without the folder changing, so each request resolves them again.
 */
import { DIRENT_DIR, DIRENT_LINK } from './disk/dirents.ts';
import type { FolderNames } from './folder-names.ts';

/** Ranks (positions in `folder.ascending`) of the visible entries of each kind, ascending. */
export interface VisibleSplit {
  key: string;
  dirs: Uint32Array;
  files: Uint32Array;
  links: Uint32Array;
}

/** Splits kept per folder (users or shares with different views of one folder). */
const PER_FOLDER = 4;

const splits = new WeakMap<FolderNames, VisibleSplit[]>();
/** The visibility each split was made with (the same for every request of its key). */
const showsOf = new WeakMap<VisibleSplit, (name: string) => boolean>();

/** A patch of a sorted folder: old ranks removed, and entries inserted before old rank `insertedAt[k]` (at new rank `inserted[k].rank`), both ascending. */
export interface SplitEdits {
  removed: number[];
  insertedAt: number[];
  inserted: Array<{ rank: number; name: string; kind: number }>;
}

/** Carries the splits kept on `from` over to `to`, `from` patched by `edits`. */
export function carrySplits(from: FolderNames, to: FolderNames, edits: SplitEdits): void {
  const kept = splits.get(from);
  if (!kept) return;
  splits.set(
    to,
    // A split whose visibility is not known is not carried (made again on use), never shown whole.
    kept.flatMap((split) => {
      const shows = showsOf.get(split);
      if (!shows) return [];
      const added = (want: (kind: number) => boolean) => edits.inserted.filter((e) => want(e.kind) && shows(e.name)).map((e) => e.rank);
      const carried: VisibleSplit = {
        key: split.key,
        dirs: shifted(
          split.dirs,
          edits,
          added((k) => k === DIRENT_DIR),
        ),
        files: shifted(
          split.files,
          edits,
          added((k) => k !== DIRENT_DIR && k !== DIRENT_LINK),
        ),
        links: shifted(
          split.links,
          edits,
          added((k) => k === DIRENT_LINK),
        ),
      };
      showsOf.set(carried, shows);
      return [carried];
    }),
  );
}

/**
 * An ascending list of old ranks as new ranks: removed ones dropped, `added` (new ranks,
 * ascending) merged in. The ranks between two edits all move by the same amount: such a run is
 * copied at once (or shifted in one loop), so a patch of a few names costs about one copy of
 * the list, not a step per rank through the edits.
 */
function shifted(list: Uint32Array, edits: SplitEdits, added: number[]): Uint32Array {
  const { removed, insertedAt } = edits;
  const out = new Uint32Array(list.length + added.length);
  let o = 0;
  let ri = 0;
  let ii = 0;
  let ai = 0;
  let p = 0;
  while (p < list.length) {
    const r = list[p];
    while (ri < removed.length && removed[ri] < r) ri++;
    if (ri < removed.length && removed[ri] === r) {
      p++;
      continue;
    }
    while (ii < insertedAt.length && insertedAt[ii] <= r) ii++;
    const delta = ii - ri;
    // The run up to the next edit moves by `delta`; an added rank never falls inside it.
    const next = Math.min(ri < removed.length ? removed[ri] : Number.POSITIVE_INFINITY, ii < insertedAt.length ? insertedAt[ii] : Number.POSITIVE_INFINITY);
    const end = next === Number.POSITIVE_INFINITY ? list.length : firstAtLeast(list, next, p + 1);
    while (ai < added.length && added[ai] < r + delta) out[o++] = added[ai++];
    if (delta === 0) out.set(list.subarray(p, end), o);
    else for (let k = p; k < end; k++) out[o + k - p] = list[k] + delta;
    o += end - p;
    p = end;
  }
  while (ai < added.length) out[o++] = added[ai++];
  return o === out.length ? out : out.subarray(0, o);
}

/** The first position from `from` in the ascending `list` whose rank is `rank` or more. */
function firstAtLeast(list: Uint32Array, rank: number, from: number): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The split of a sorted folder for the visibility `key` (`shows` decides it), made at the first call. */
export function visibleSplit(folder: FolderNames, ascending: Uint32Array, key: string, shows: (name: string) => boolean): VisibleSplit {
  const kept = splits.get(folder) ?? [];
  const hit = kept.find((s) => s.key === key);
  if (hit) return hit;
  const { names, kinds } = folder;
  const dirs: number[] = [];
  const files: number[] = [];
  const links: number[] = [];
  for (let r = 0; r < ascending.length; r++) {
    const i = ascending[r];
    if (!shows(names[i])) continue;
    (kinds[i] === DIRENT_LINK ? links : kinds[i] === DIRENT_DIR ? dirs : files).push(r);
  }
  const split = { key, dirs: Uint32Array.from(dirs), files: Uint32Array.from(files), links: Uint32Array.from(links) };
  showsOf.set(split, shows);
  kept.push(split);
  if (kept.length > PER_FOLDER) kept.shift();
  splits.set(folder, kept);
  return split;
}

/**
 * Entries `from` … `from + count - 1` of the merge of two ascending rank lists, read ascending
 * or exactly reversed. Costs the positions skipped and taken, not the lists' lengths (but for
 * the skip when `b` is empty, which is direct).
 */
export function takeMerged(a: ArrayLike<number>, b: ArrayLike<number>, from: number, count: number, asc: boolean): number[] {
  const out: number[] = [];
  if (count <= 0) return out;
  const step = asc ? 1 : -1;
  let i = asc ? 0 : a.length - 1;
  let j = asc ? 0 : b.length - 1;
  const left = (k: number, list: ArrayLike<number>) => (asc ? k < list.length : k >= 0);
  let p = 0;
  if (b.length === 0) {
    i += step * from;
    p = from;
  }
  for (; p < from + count; p++) {
    const hasA = left(i, a);
    const hasB = left(j, b);
    if (!hasA && !hasB) break;
    let r: number;
    if (hasA && (!hasB || (asc ? a[i] < b[j] : a[i] > b[j]))) {
      r = a[i];
      i += step;
    } else {
      r = b[j];
      j += step;
    }
    if (p >= from) out.push(r);
  }
  return out;
}
