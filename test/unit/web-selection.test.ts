import { describe, expect, it } from 'vitest';
import { click, DOUBLE_CLICK_MS, indexesOf, moveCursor, pathsOf, range, toggle } from '../../web/lib/selection.ts';

const plain = { ctrl: false, shift: false };
const normal = { singleClick: false, multiple: false };

describe('listing selection', () => {
  it('a plain click selects only the clicked item', () => {
    const r = click([1, 4], undefined, { index: 2, ...plain, time: 0 }, normal);
    expect(r).toMatchObject({ selected: [2], open: false });
  });

  it('a second click on the same item within 300 ms opens it, later it does not', () => {
    const first = click([], undefined, { index: 3, ...plain, time: 1000 }, normal);
    expect(click(first.selected, first.last, { index: 3, ...plain, time: 1000 + DOUBLE_CLICK_MS }, normal).open).toBe(true);
    expect(click(first.selected, first.last, { index: 3, ...plain, time: 1000 + DOUBLE_CLICK_MS + 1 }, normal).open).toBe(false);
    expect(click(first.selected, first.last, { index: 4, ...plain, time: 1100 }, normal).open).toBe(false);
  });

  it('a triple click does not open twice', () => {
    const a = click([], undefined, { index: 1, ...plain, time: 0 }, normal);
    const b = click(a.selected, a.last, { index: 1, ...plain, time: 100 }, normal);
    const c = click(b.selected, b.last, { index: 1, ...plain, time: 200 }, normal);
    expect([b.open, c.open]).toEqual([true, false]);
  });

  it('Ctrl or Meta toggles one item in or out', () => {
    expect(click([1], undefined, { index: 3, ctrl: true, shift: false, time: 0 }, normal).selected).toEqual([1, 3]);
    expect(click([1, 3], undefined, { index: 1, ctrl: true, shift: false, time: 0 }, normal).selected).toEqual([3]);
  });

  it('Shift selects the range from the first selected item, in either direction', () => {
    expect(click([2, 9], undefined, { index: 5, ctrl: false, shift: true, time: 0 }, normal).selected).toEqual([2, 3, 4, 5]);
    expect(click([5], undefined, { index: 2, ctrl: false, shift: true, time: 0 }, normal).selected).toEqual([5, 4, 3, 2]);
    expect(click([], undefined, { index: 2, ctrl: false, shift: true, time: 0 }, normal).selected).toEqual([2]);
  });

  it('Ctrl+Shift adds the range to the selection', () => {
    expect(click([0, 9], undefined, { index: 2, ctrl: true, shift: true, time: 0 }, normal).selected).toEqual([0, 9, 1, 2]);
  });

  it('single-click mode opens on click unless multiple selection is on', () => {
    expect(click([], undefined, { index: 1, ...plain, time: 0 }, { singleClick: true, multiple: false }).open).toBe(true);
    const r = click([1], undefined, { index: 2, ...plain, time: 0 }, { singleClick: true, multiple: true });
    expect(r).toMatchObject({ selected: [1, 2], open: false });
  });

  it('multiple-selection mode opens on a double click, leaving the selection as it was before the pair', () => {
    const opts = { singleClick: false, multiple: true };
    const first = click([1], undefined, { index: 3, ...plain, time: 1000 }, opts);
    expect(first).toMatchObject({ selected: [1, 3], open: false });
    const second = click(first.selected, first.last, { index: 3, ...plain, time: 1200 }, opts);
    expect(second).toMatchObject({ selected: [1], open: true });
    const late = click(first.selected, first.last, { index: 3, ...plain, time: 1600 }, opts);
    expect(late).toMatchObject({ selected: [1], open: false });
    const single = click([], undefined, { index: 2, ...plain, time: 0 }, { singleClick: true, multiple: true });
    expect(click(single.selected, single.last, { index: 2, ...plain, time: 100 }, { singleClick: true, multiple: true }).open).toBe(true);
  });

  it('multiple-selection mode toggles on plain clicks', () => {
    expect(click([1, 2], undefined, { index: 2, ...plain, time: 0 }, { singleClick: false, multiple: true }).selected).toEqual([1]);
  });

  it('keeps the selection by identity: a refresh or another folder never moves it onto another item', () => {
    const before = [{ path: '/a' }, { path: '/b' }, { path: '/c' }];
    const kept = pathsOf([2, 0], before);
    expect(kept).toEqual(['/c', '/a']);
    // A refresh with a new item first: the same items stay selected, the anchor first.
    const after = [{ path: '/new' }, { path: '/a' }, { path: '/c' }];
    expect(indexesOf(kept, after)).toEqual([2, 1]);
    // Another folder at the same positions: nothing of it is selected.
    const other = [{ path: '/x/a' }, { path: '/x/b' }, { path: '/x/c' }];
    expect(indexesOf(kept, other)).toEqual([]);
    // A deleted item leaves the selection.
    expect(indexesOf(kept, [{ path: '/a' }])).toEqual([0]);
    expect(indexesOf([], after)).toEqual([]);
    expect(pathsOf([5], before)).toEqual([]);
  });

  it('a click rule applied through paths selects the clicked item of this listing', () => {
    const items = [{ path: '/a' }, { path: '/b' }, { path: '/c' }, { path: '/d' }];
    const anchor = pathsOf(click([], undefined, { index: 1, ...plain, time: 0 }, normal).selected, items);
    expect(anchor).toEqual(['/b']);
    // Shift-click from the anchor after an item was added before it: the range starts at the same item.
    const grown = [{ path: '/0' }, ...items];
    const r = click(indexesOf(anchor, grown), undefined, { index: 4, ctrl: false, shift: true, time: 10 }, normal);
    expect(pathsOf(r.selected, grown)).toEqual(['/b', '/c', '/d']);
  });

  it('helpers: ranges, toggles and a clamped keyboard cursor', () => {
    expect(range(3, 1)).toEqual([3, 2, 1]);
    expect(toggle([1, 2], 3)).toEqual([1, 2, 3]);
    expect(moveCursor(undefined, 1, 5)).toBe(0);
    expect(moveCursor(undefined, -1, 5)).toBe(4);
    expect(moveCursor(3, 10, 5)).toBe(4);
    expect(moveCursor(1, -10, 5)).toBe(0);
    expect(moveCursor(0, 1, 0)).toBeUndefined();
  });
});
