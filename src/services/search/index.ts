/**
 * The search service seam. Routes depend on `SearchService` only; the walk below is today's
 * implementation, and a persistent index (issue 8) replaces it, falling back to the walk until
 * the index is ready.
 */
import type { Access, Gate, Target } from '../files/gate.ts';
import type { SearchQuery } from './query.ts';
import { WalkSearch } from './walk.ts';

export { parseQuery, type SearchQuery } from './query.ts';

/** One match. */
export interface SearchResult {
  /** Virtual path of the match (relative to the access root, like every gate path). */
  virtual: string;
  dir: boolean;
}

export interface SearchService {
  /**
   * Streams the entries under `target` (a folder resolved for `access`) that match `query`,
   * excluding `target` itself. Only entries the access may see are yielded: rules, hidden
   * dotfiles and fm's own files are applied, denied folders are not entered. Iteration stops
   * soon after `signal` aborts.
   */
  search(access: Access, target: Target, query: SearchQuery, signal: AbortSignal): AsyncIterable<SearchResult>;
}

/** The search service for a gate (the walk, until the index lands). */
export function createSearchService(gate: Gate): SearchService {
  return new WalkSearch(gate);
}
