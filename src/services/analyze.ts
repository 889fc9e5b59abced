/**
 * The storage analyzer: a folder's largest entries and, for folders, theirs, from the live
 * index (sizes and counts kept by the index as files change; nothing is read from the disk).
 * Entries are filtered as listings filter them (rules, hidden dotfiles, writes in progress;
 * fm's own files are not indexed); a folder's total is the index's, everything in it, as
 * `?dirsizes=true` reports it.
 */
import type { AnalyzeEntryDto } from '../api/analyze.ts';
import { compareNames } from '../api/files.ts';
import type { EntryStore } from './indexer/store.ts';
import { type Gate, PARTIAL_PREFIX, type Target } from './files/gate.ts';

export interface AnalyzeOptions {
  /** Levels of folders to open (1: the folder's own entries). */
  depth: number;
  /** Entries named per folder; the others are summed up in `rest`. */
  limit: number;
}

/** The analysis of a folder target found in the index at `id`. */
export function analyzeFolder(gate: Gate, target: Target, store: EntryStore, id: number, opts: AnalyzeOptions): AnalyzeEntryDto {
  const { access } = target;
  const checkRules = !access.rules.isEmpty;
  const shows = (name: string, virtual: string) => !name.startsWith(PARTIAL_PREFIX) && !(checkRules && !gate.visible(access, virtual));
  const sizeOf = (e: number) => (store.isDir(e) ? store.treeSize[e] : store.size[e]);

  const entry = (e: number, name: string, virtual: string, depth: number): AnalyzeEntryDto => {
    const isDir = store.isDir(e);
    const out: AnalyzeEntryDto = { name, path: virtual, isDir, size: sizeOf(e), count: isDir ? store.treeCount[e] : 0 };
    if (!isDir || depth <= 0) return out;
    const prefix = virtual === '/' ? '/' : `${virtual}/`;
    const kids: number[] = [];
    for (const k of store.children[e] ?? []) if (!store.isDead(k) && shows(store.names[k], prefix + store.names[k])) kids.push(k);
    kids.sort((a, b) => sizeOf(b) - sizeOf(a) || compareNames(store.names[a], store.names[b]));
    const named = kids.slice(0, opts.limit);
    out.children = named.map((k) => entry(k, store.names[k], prefix + store.names[k], depth - 1));
    if (kids.length > named.length) {
      let size = 0;
      for (let i = named.length; i < kids.length; i++) size += sizeOf(kids[i]);
      out.rest = { size, count: kids.length - named.length };
    }
    return out;
  };

  const name = target.virtual === '/' ? '' : target.virtual.slice(target.virtual.lastIndexOf('/') + 1);
  return entry(id, name, target.virtual, opts.depth);
}
