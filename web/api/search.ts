/** GET /api/search/{dir}?query=: results streamed as NDJSON and handed over as they arrive. */
import type { SearchResultDto } from '../../src/api/files.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import { readNdjson } from '../lib/ndjson.ts';
import { request } from './client.ts';

export type SearchResult = SearchResultDto;

/** Runs a search under `dir`, calling `onBatch` with each batch of results; resolves at the end of the stream. */
export async function search(dir: string, query: string, onBatch: (batch: SearchResult[]) => void, signal?: AbortSignal): Promise<void> {
  const t = trimSlash(dir);
  const res = await request(`/api/search${t === '/' ? '/' : `${encodePath(t)}/`}?query=${encodeURIComponent(query)}`, { signal });
  if (!res.body) return;
  for await (const batch of readNdjson<SearchResult>(res.body)) onBatch(batch);
}
