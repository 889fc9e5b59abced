/**
 * Search through the live index once it is ready, through the walk until then. Every hit is
 * checked like a walked entry would be: the path and all its ancestors visible to the access
 * (rules, hidden dotfiles), links resolved and left out when they lead out of the scope or into
 * a folder the rules deny.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Access, Gate, Target } from '../files/gate.ts';
import type { SearchIndex } from '../indexer/index.ts';
import { hasFilters, matches, type SearchQuery } from './query.ts';
import type { SearchResult, SearchService } from './index.ts';

/** The index's hits per batch at most; the event loop gets a turn after each. */
const BATCH = 1000;

export class IndexedSearch implements SearchService {
  constructor(
    private readonly gate: Gate,
    private readonly index: SearchIndex,
    private readonly fallback: SearchService,
  ) {}

  async *search(access: Access, target: Target, query: SearchQuery, signal: AbortSignal): AsyncGenerator<SearchResult[]> {
    if (!target.isDir || signal.aborted) return;
    if (!this.index.isReady) {
      yield* this.fallback.search(access, target, query, signal);
      return;
    }
    const others: SearchQuery = { ...query, terms: [] };
    // Without filters every hit passes: no entry is decoded and handed over just to be checked.
    const filter = hasFilters(others) ? (e: { name: string; isDir: boolean; size: number; mtimeMs: number }) => matches(others, e) : undefined;
    const base = target.virtual === '/' ? '' : target.virtual;
    const rootAbs = target.real;
    let batch: SearchResult[] = [];
    let n = 0;
    for (const hit of this.index.query(target.real, query.terms, query.caseSensitive, filter)) {
      // Counted in the index's hits, not the visible ones: hits the rules hide take turns too.
      if (++n % BATCH === 0) {
        if (batch.length) yield batch;
        batch = [];
        await yieldToLoop();
        // Only an event aborts the signal: it cannot change between these turns.
        if (signal.aborted) return;
      }
      const virtual = `${base}/${hit.rel}`;
      if (!this.visibleWithAncestors(access, base, virtual)) continue;
      let { isDir: dir, size, mtimeMs } = hit;
      if (hit.isLink) {
        const resolved = this.gate.resolveLinkEntry(access, `${rootAbs}/${hit.rel}`);
        if (resolved === 'denied') continue;
        dir = resolved !== 'dangling' && resolved.stat.isDirectory();
        if (resolved !== 'dangling') ({ size, mtimeMs } = resolved.stat);
      }
      batch.push({ virtual, dir, size: dir ? 0 : size, mtimeMs });
    }
    if (batch.length && !signal.aborted) yield batch;
  }

  /** The walk prunes denied folders; the index must hide what lies below them too. */
  private visibleWithAncestors(access: Access, base: string, virtual: string): boolean {
    if (!this.gate.visible(access, virtual)) return false;
    if (access.rules.isEmpty) return true;
    for (let i = virtual.indexOf('/', base.length + 1); i > 0; i = virtual.indexOf('/', i + 1)) {
      if (!this.gate.visible(access, virtual.slice(0, i))) return false;
    }
    return true;
  }
}
