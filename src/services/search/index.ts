/**
 * The search service seam. Routes depend on `SearchService` only: the live index answers once it
 * is ready, the walk until then.
 */
import type { Access, Gate, Target } from '../files/gate.ts';
import type { SearchQuery } from './query.ts';
import { WalkSearch } from './walk.ts';
import { IndexedSearch } from './indexed.ts';
import type { SearchIndex } from '../indexer/index.ts';

export { parseQuery, type SearchQuery } from './query.ts';

/** One match. */
export interface SearchResult {
  /** Virtual path of the match (relative to the access root, like every gate path). */
  virtual: string;
  dir: boolean;
  /** Bytes (0 for a folder) and modification time of the entry, or of a link's target. */
  size: number;
  mtimeMs: number;
}

export interface SearchService {
  /**
   * Streams the entries under `target` (a folder resolved for `access`) that match `query`,
   * excluding `target` itself, in batches (the index finds thousands at once: one step of the
   * stream each, not one per hit; the walk yields each as it finds it). Only entries the access may see are yielded: rules, hidden
   * dotfiles and fm's own files are applied, denied folders are not entered. Iteration stops
   * soon after `signal` aborts.
   */
  search(access: Access, target: Target, query: SearchQuery, signal: AbortSignal): AsyncIterable<SearchResult[]>;
}

/** The search service: the live index when given and ready, the walk otherwise. */
export function createSearchService(gate: Gate, index?: SearchIndex): SearchService {
  const walk = new WalkSearch(gate);
  return index ? new IndexedSearch(gate, index, walk) : walk;
}
