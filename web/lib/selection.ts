/**
 * Selection rules of the listing (spec §4 "Selection"), as pure functions over item indexes.
 * The first selected index is the anchor of Shift ranges. The selection itself is kept by
 * identity (the items' paths): `indexesOf` and `pathsOf` translate at the edges, so a reload or
 * another folder never moves it onto another item.
 */

/** Two clicks on the same item within this many milliseconds open it. */
export const DOUBLE_CLICK_MS = 300;

export interface ClickInput {
  index: number;
  ctrl: boolean;
  shift: boolean;
  /** Event time in milliseconds. */
  time: number;
}

export interface ClickOptions {
  singleClick: boolean;
  multiple: boolean;
}

export interface LastClick {
  index: number;
  time: number;
}

export interface ClickResult {
  selected: number[];
  /** The clicked item should be opened. */
  open: boolean;
  last: LastClick;
}

/** Indexes from `a` to `b` inclusive, starting at `a`. */
export function range(a: number, b: number): number[] {
  const out: number[] = [];
  const step = a <= b ? 1 : -1;
  for (let i = a; i !== b + step; i += step) out.push(i);
  return out;
}

export function toggle(selected: number[], index: number): number[] {
  return selected.includes(index) ? selected.filter((i) => i !== index) : [...selected, index];
}

/** Applies one click to the selection. */
export function click(selected: number[], last: LastClick | undefined, input: ClickInput, opts: ClickOptions): ClickResult {
  const { index, time } = input;
  const here: LastClick = { index, time };
  if (input.shift && selected.length > 0) {
    const span = range(selected[0], index);
    if (!input.ctrl) return { selected: span, open: false, last: here };
    return { selected: [...selected, ...span.filter((i) => !selected.includes(i))], open: false, last: here };
  }
  if (input.ctrl) return { selected: toggle(selected, index), open: false, last: here };
  const double = last !== undefined && last.index === index && time - last.time <= DOUBLE_CLICK_MS;
  if (opts.multiple) {
    // A double click opens the item: its second click undoes the first one's toggle.
    if (double) return { selected: toggle(selected, index), open: true, last: { index: -1, time: 0 } };
    return { selected: toggle(selected, index), open: false, last: here };
  }
  if (opts.singleClick) return { selected: [index], open: true, last: here };
  // After a double click the next click starts a fresh pair.
  return { selected: [index], open: double, last: double ? { index: -1, time: 0 } : here };
}

/** The positions of the selected paths in `items`, in selection order (the anchor first); paths not there are left out. */
export function indexesOf(paths: readonly string[], items: readonly { path: string }[]): number[] {
  if (paths.length === 0) return [];
  const at = new Map(items.map((item, i) => [item.path, i]));
  return paths.map((p) => at.get(p)).filter((i): i is number => i !== undefined);
}

/** The paths of the items at these positions, in the same order; positions outside `items` are left out. */
export function pathsOf(indexes: readonly number[], items: readonly { path: string }[]): string[] {
  return indexes.map((i) => items[i]?.path).filter((p): p is string => p !== undefined);
}

/** Moves a keyboard cursor by `delta` within `count` items, clamped; from nothing it starts at the first or last. */
export function moveCursor(current: number | undefined, delta: number, count: number): number | undefined {
  if (count === 0) return undefined;
  if (current === undefined) return delta >= 0 ? 0 : count - 1;
  return Math.min(count - 1, Math.max(0, current + delta));
}
