/** The rows of the virtual listing: section headings and lines of items (one item per line in list view). */

export type Row =
  | { kind: 'heading'; section: 'folders' | 'files' }
  /** Items [start, end) of the sorted listing. */
  | { kind: 'items'; start: number; end: number };

/**
 * Rows for the first `shown` items of a listing whose first `dirCount` items are folders,
 * `columns` items per line; folders and files never share a line.
 */
export function buildRows(dirCount: number, shown: number, columns: number): Row[] {
  const rows: Row[] = [];
  const cols = Math.max(1, columns);
  const dirsShown = Math.min(dirCount, shown);
  const section = (name: 'folders' | 'files', from: number, to: number) => {
    if (to <= from) return;
    rows.push({ kind: 'heading', section: name });
    for (let i = from; i < to; i += cols) rows.push({ kind: 'items', start: i, end: Math.min(i + cols, to) });
  };
  section('folders', 0, dirsShown);
  section('files', dirCount, Math.max(dirCount, shown));
  return rows;
}

/** The row holding item `index`, or -1. */
export function rowOf(rows: readonly Row[], index: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    let mid = (lo + hi) >> 1;
    // A heading is followed by an item row; compare against that one.
    if (rows[mid].kind === 'heading') {
      if (mid + 1 > hi) {
        hi = mid - 1;
        continue;
      }
      mid += 1;
    }
    const r = rows[mid] as Extract<Row, { kind: 'items' }>;
    if (index < r.start) hi = mid - 1;
    else if (index >= r.end) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/** Columns that fit a width with a minimum column width and a gap. */
export function columnsFor(width: number, minColumn: number, gap: number): number {
  return Math.max(1, Math.floor((width + gap) / (minColumn + gap)));
}
