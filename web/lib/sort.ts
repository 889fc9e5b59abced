/**
 * Listing order. The server sorts listings (folders first, then the user's sorting, names by the
 * one shared key of src/api/files.ts); the UI keeps its order and asks it again when the sorting
 * changes. Where the UI must sort names itself it uses the same `compareNames`.
 */
import type { Sorting } from '../../src/api/user.ts';

export type { Sorting };

/** The sorting after a click on a column header: the same column flips direction, another starts ascending. */
export function nextSorting(current: Sorting, by: Sorting['by']): Sorting {
  return current.by === by ? { by, asc: !current.asc } : { by, asc: true };
}
