import { describe, expect, it } from 'vitest';
import { nextSorting } from '../../web/lib/sort.ts';
import { buildRows, columnsFor, rowOf } from '../../web/lib/rows.ts';
import { conflicts, planTransfer, sameFolder } from '../../web/lib/conflicts.ts';

// The listing order itself is the server's (test/unit/api-files.test.ts, the listing tests and e2e/sort-order.test.ts).
describe('sorting preference', () => {
  it('a click on the sorted column flips it; another column starts ascending', () => {
    expect(nextSorting({ by: 'name', asc: true }, 'name')).toEqual({ by: 'name', asc: false });
    expect(nextSorting({ by: 'name', asc: false }, 'size')).toEqual({ by: 'size', asc: true });
  });
});

describe('virtual rows', () => {
  it('makes a heading per section and lines of items that never mix folders and files', () => {
    expect(buildRows(3, 8, 2)).toEqual([
      { kind: 'heading', section: 'folders' },
      { kind: 'items', start: 0, end: 2 },
      { kind: 'items', start: 2, end: 3 },
      { kind: 'heading', section: 'files' },
      { kind: 'items', start: 3, end: 5 },
      { kind: 'items', start: 5, end: 7 },
      { kind: 'items', start: 7, end: 8 },
    ]);
    expect(buildRows(0, 2, 1)).toEqual([
      { kind: 'heading', section: 'files' },
      { kind: 'items', start: 0, end: 1 },
      { kind: 'items', start: 1, end: 2 },
    ]);
    expect(buildRows(10, 4, 1).filter((r) => r.kind === 'heading')).toEqual([{ kind: 'heading', section: 'folders' }]);
  });

  it('finds the row of any item (binary search agrees with a scan)', () => {
    for (const [dirs, shown, cols] of [
      [3, 8, 2],
      [0, 50, 3],
      [7, 7, 1],
      [5, 100, 4],
      [1, 1, 1],
    ] as const) {
      const rows = buildRows(dirs, shown, cols);
      for (let i = 0; i < shown; i++) {
        const linear = rows.findIndex((r) => r.kind === 'items' && i >= r.start && i < r.end);
        expect(rowOf(rows, i)).toBe(linear);
      }
      expect(rowOf(rows, shown)).toBe(-1);
    }
  });

  it('fits mosaic columns of at least 280 px', () => {
    expect(columnsFor(1000, 280, 8)).toBe(3);
    expect(columnsFor(200, 280, 8)).toBe(1);
  });
});

describe('copy and move planning', () => {
  const sources = [
    { path: '/a/x.txt', name: 'x.txt' },
    { path: '/a/y', name: 'y' },
  ];
  it('targets each item under the destination and finds name conflicts', () => {
    const plan = planTransfer(sources, '/b/');
    expect(plan).toEqual([
      { from: '/a/x.txt', to: '/b/x.txt', name: 'x.txt' },
      { from: '/a/y', to: '/b/y', name: 'y' },
    ]);
    expect(conflicts(plan, ['y', 'z'])).toEqual(['y']);
    expect(sameFolder(plan, '/b')).toBe(false);
    expect(sameFolder(planTransfer(sources, '/a'), '/a/')).toBe(true);
  });
});
