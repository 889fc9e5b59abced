/** The storage analyzer (`GET /api/analyze/{path}`): the largest entries of a folder, from the live index. */

/** Levels the analyzer may go down, and entries per folder it may name. */
export const ANALYZE_MAX_DEPTH = 4;
export const ANALYZE_MAX_LIMIT = 200;

export interface AnalyzeEntryDto {
  name: string;
  /** Virtual path, as in listings. */
  path: string;
  isDir: boolean;
  /** Bytes: a file's size, a folder's total. */
  size: number;
  /** Entries under a folder, at any depth (0 for a file). */
  count: number;
  /** A folder's largest entries, largest first, down to the depth asked for. */
  children?: AnalyzeEntryDto[];
  /** The entries of the folder not in `children` (fewer than asked for, or too small): their total size and number. */
  rest?: { size: number; count: number };
}

export interface AnalyzeDto {
  /** `ready`: `root` is there; `building`: the index is still being built; `off`: fm runs without it (--no-index). */
  state: 'ready' | 'building' | 'off';
  root?: AnalyzeEntryDto;
}
