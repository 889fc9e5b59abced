/** Listing order: folders first, then by name (natural, case-insensitive), size or modification time. */

export interface Sorting {
  by: string;
  asc: boolean;
}

export interface Sortable {
  name: string;
  size: number;
  modified: string;
  isDir: boolean;
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

export const compareNames = (a: string, b: string): number => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

/** The comparator for a sorting. `asc` means A→Z, small→large and oldest→newest (DESIGN.md §10). */
export function comparator(sorting: Sorting): (a: Sortable, b: Sortable) => number {
  const dir = sorting.asc ? 1 : -1;
  const byName = (a: Sortable, b: Sortable) => compareNames(a.name, b.name);
  let key: (a: Sortable, b: Sortable) => number;
  // Ties on size or date fall back to A→Z whatever the direction (as the server sorts).
  if (sorting.by === 'size') key = (a, b) => (a.size - b.size) * dir || byName(a, b);
  else if (sorting.by === 'modified') key = (a, b) => (Date.parse(a.modified) - Date.parse(b.modified)) * dir || byName(a, b);
  else key = (a, b) => byName(a, b) * dir;
  return (a, b) => {
    if (a.isDir !== b.isDir) return a.isDir ? -1 : 1;
    return key(a, b);
  };
}

/** Sorts items (a new array); skips the work when the server already sent them in this order. */
export function sortItems<T extends Sortable>(items: readonly T[], sorting: Sorting): T[] {
  const cmp = comparator(sorting);
  let sorted = true;
  for (let i = 1; i < items.length; i++) {
    if (cmp(items[i - 1], items[i]) > 0) {
      sorted = false;
      break;
    }
  }
  return sorted ? items.slice() : items.slice().sort(cmp);
}

/** The sorting after a click on a column header: the same column flips direction, another starts ascending. */
export function nextSorting(current: Sorting, by: string): Sorting {
  return current.by === by ? { by, asc: !current.asc } : { by, asc: true };
}
