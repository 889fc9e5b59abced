/**
 * Search by walking the tree (filebrowser's method): every visible entry under the folder is
 * matched by name, and stat-ed only when the query filters on size or time. Denied folders are
 * pruned by the gate's visible-tree walk; symlinks are never followed, and links leading out
 * of the scope or into a denied folder are left out as listings leave them out. Names that are
 * not UTF-8 are walked and matched in their escaped form (files/disk/names.ts).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Access, Gate, Target } from '../files/gate.ts';
import { isPartialName } from '../files/io.ts';
import { lstatOrUndefined } from '../files/disk/lookup.ts';
import type { Stats } from '../files/disk/types.ts';
import { matches, needsStat, type SearchQuery } from './query.ts';
import type { SearchResult, SearchService } from './index.ts';

export class WalkSearch implements SearchService {
  constructor(private readonly gate: Gate) {}

  async *search(access: Access, target: Target, query: SearchQuery, signal: AbortSignal): AsyncGenerator<SearchResult[]> {
    if (!target.isDir || signal.aborted) return;
    const withStat = needsStat(query);
    let stats = 0;
    for await (const entry of this.gate.visibleTree(target)) {
      if (signal.aborted) return;
      const { dirent } = entry;
      if (isPartialName(dirent.name)) continue;
      let isDir = dirent.isDirectory();
      let st: Stats | undefined;
      if (dirent.isSymbolicLink()) {
        const resolved = this.gate.resolveLinkEntry(access, entry.abs);
        if (resolved === 'denied') continue;
        const target = resolved === 'dangling' ? undefined : resolved.stat;
        isDir = target?.isDirectory() ?? false;
        st = target ?? (withStat ? lstatOrUndefined(entry.abs) : undefined);
      } else if (withStat) {
        // Synchronous lstat in small batches: several times faster than the thread pool on a
        // long walk, and yielding between batches keeps the server responsive.
        if (++stats % STAT_BATCH === 0) await yieldToLoop();
        st = lstatOrUndefined(entry.abs);
        if (!st) continue; // vanished meanwhile
      }
      if (matches(query, { name: dirent.name, isDir, size: st?.size, mtimeMs: st?.mtimeMs })) {
        // Only matches are stat-ed for the result's size and date, not every entry walked.
        const info = st ?? lstatOrUndefined(entry.abs);
        yield [{ virtual: entry.virtual, dir: isDir, size: isDir ? 0 : (info?.size ?? 0), mtimeMs: info?.mtimeMs ?? 0 }];
      }
    }
  }
}

const STAT_BATCH = 256;
