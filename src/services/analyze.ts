/**
 * The storage analyzer: a folder's largest entries and, for folders, theirs, from the live
 * index (sizes and counts kept by the index as files change; nothing is read from the disk).
 * Entries are filtered as listings filter them (rules, hidden dotfiles, writes in progress;
 * fm's own files are not indexed); a folder's total is the index's, everything in it, as
 * `?dirsizes=true` reports it. A two-level view of a large tree visits a million entries: the
 * walk gives the event loop back every YIELD_EVERY entries, so other requests are not held up
 * (changes applied meanwhile may be seen half: the figures are a moment's, not a snapshot's).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AnalyzeEntryDto } from '../api/analyze.ts';
import { compareNames } from '../api/files.ts';
import type { EntryStore } from './indexer/store.ts';
import { type Gate, PARTIAL_PREFIX, type Target } from './files/gate.ts';

/** Entries visited between two turns of the event loop. */
const YIELD_EVERY = 50_000;

export interface AnalyzeOptions {
  /** Levels of folders to open (1: the folder's own entries). */
  depth: number;
  /** Entries named per folder; the others are summed up in `rest`. */
  limit: number;
}

/** The analysis of a folder target found in the index at `id`. */
export async function analyzeFolder(gate: Gate, target: Target, store: EntryStore, id: number, opts: AnalyzeOptions): Promise<AnalyzeEntryDto> {
  const { access } = target;
  const checkRules = !access.rules.isEmpty;
  const shows = (name: string, prefix: string) => !name.startsWith(PARTIAL_PREFIX) && !(checkRules && !gate.visible(access, prefix + name));
  const sizeOf = (e: number) => store.treeSizeOf(e);

  let visited = 0;
  const entry = async (e: number, name: string, virtual: string, depth: number): Promise<AnalyzeEntryDto> => {
    const isDir = store.isDir(e);
    const out: AnalyzeEntryDto = { name, path: virtual, isDir, size: sizeOf(e), count: store.treeCountOf(e) };
    if (!isDir || depth <= 0) return out;
    const prefix = virtual === '/' ? '/' : `${virtual}/`;
    const kids = store.childIds(e);
    visited += kids.length;
    if (visited >= YIELD_EVERY) {
      visited = 0;
      await nextTurn();
    }
    const { top, rest } = largest(kids, opts.limit, sizeOf, (k) => !store.isDead(k) && shows(store.name(k), prefix));
    top.sort((a, b) => sizeOf(b) - sizeOf(a) || compareNames(store.name(a), store.name(b)));
    out.children = [];
    for (const k of top) {
      const name = store.name(k);
      out.children.push(await entry(k, name, prefix + name, depth - 1));
    }
    if (rest.count) out.rest = rest;
    return out;
  };

  const name = target.virtual === '/' ? '' : target.virtual.slice(target.virtual.lastIndexOf('/') + 1);
  return await entry(id, name, target.virtual, opts.depth);
}

/**
 * The `limit` largest of `ids` that pass `keep`, and the others summed up. One pass with a small
 * sorted list (a million entries are visited on a two-level view of a large tree: sorting every
 * folder's entries, by name on ties, cost ten times more). On equal sizes at the cut, the entry
 * seen first stays.
 */
function largest(ids: number[], limit: number, sizeOf: (id: number) => number, keep: (id: number) => boolean) {
  const top: number[] = [];
  const sizes: number[] = [];
  let total = 0;
  let count = 0;
  for (const id of ids) {
    if (!keep(id)) continue;
    count++;
    const size = sizeOf(id);
    total += size;
    if (top.length === limit && size <= sizes[limit - 1]) continue;
    let at = top.length;
    while (at > 0 && sizes[at - 1] < size) at--;
    top.splice(at, 0, id);
    sizes.splice(at, 0, size);
    if (top.length > limit) {
      top.pop();
      sizes.pop();
    }
  }
  let kept = 0;
  for (const s of sizes) kept += s;
  return { top, rest: { size: total - kept, count: count - top.length } };
}
