import { describe, expect, it } from 'vitest';
import { click, DOUBLE_CLICK_MS, moveCursor, range, remapSelection, toggle } from '../../web/lib/selection.ts';

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

  it('keeps selected items across a refresh by path', () => {
    const before = [{ path: '/a' }, { path: '/b' }, { path: '/c' }];
    const after = [{ path: '/new' }, { path: '/a' }, { path: '/c' }];
    expect(remapSelection([0, 1, 2], before, after)).toEqual([1, 2]);
    expect(remapSelection([], before, after)).toEqual([]);
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
