/**
 * Long passes over a large folder's names on the main thread, cut into slices of about SLICE_MS
 * with a turn of the event loop between them, so requests are answered meanwhile (relist.ts:
 * 100,000 names take ~100 ms, which in one piece is a stall every request behind it waits out).
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { byKeys } from '../files/folder-names.ts';

/** Main-thread time between two turns of the event loop, at most about this. */
export const SLICE_MS = 2;
/** Items handled between two looks at the clock. */
const CHECK_EVERY = 512;

/**
 * Told of the items of a long pass as they are done (one by default): resolves after a turn of
 * the event loop when the slice's time is up, else returns undefined at once (`await` only what
 * it returns: no promise per item).
 */
export type Slicer = (done?: number) => Promise<void> | undefined;

/** A Slicer cutting every SLICE_MS (`now`: the clock, for tests). */
export function slicer(now: () => number = () => performance.now()): Slicer {
  let since = now();
  let items = 0;
  return (done = 1) => {
    items += done;
    if (items < CHECK_EVERY) return undefined;
    items = 0;
    if (now() - since < SLICE_MS) return undefined;
    return yieldToLoop().then(() => {
      since = now();
    });
  };
}

/** Indices sorted alone in one piece: ~1 ms for names in no order. */
const RUN = 2048;

/**
 * Indices of `names` in `orderByKeys`'s order (folder-names.ts: by sort key, ties by the raw
 * name), sorted in slices: runs of RUN indices sorted each in one piece, then merged pairwise,
 * `slice` called once per index placed. Names mostly in order (a relisted folder's: the new ones
 * last) cost one comparison per index and merge pass.
 */
export async function orderInSlices(names: readonly string[], keys: readonly string[], slice: Slicer): Promise<Uint32Array> {
  const n = names.length;
  const compare = byKeys(names, keys);
  let src = new Uint32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  for (let from = 0; from < n; from += RUN) {
    src.subarray(from, Math.min(n, from + RUN)).sort(compare);
    const p = slice(RUN);
    if (p) await p;
  }
  let dst = new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      for (let o = lo; o < hi; o++) {
        dst[o] = j >= hi || (i < mid && compare(src[i], src[j]) < 0) ? src[i++] : src[j++];
        const p = slice();
        if (p) await p;
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}
