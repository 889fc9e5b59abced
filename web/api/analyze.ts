/** The storage analyzer's data (GET /api/analyze/{path}). */
import type { AnalyzeDto } from '../../src/api/analyze.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import { requestJSON } from './client.ts';

export type { AnalyzeDto, AnalyzeEntryDto } from '../../src/api/analyze.ts';

/** Two levels: the folder's largest entries, and theirs drawn inside them. */
export function get(path: string, signal?: AbortSignal): Promise<AnalyzeDto> {
  const t = trimSlash(path);
  return requestJSON<AnalyzeDto>(`/api/analyze${t === '/' ? '/' : encodePath(t)}?depth=2&limit=40`, { signal });
}
