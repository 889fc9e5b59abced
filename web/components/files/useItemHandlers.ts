/** Mouse, keyboard and drag-and-drop handling of listing items (spec §4 "Selection", drag to move). */
import { useAtom } from 'jotai';
import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent, type MouseEvent } from 'react';
import type { ResourceItem } from '../../api/resources.ts';
import { useFileOps } from '../../actions/files.ts';
import { click, indexesOf, moveCursor, pathsOf, range, toggle, type LastClick } from '../../lib/selection.ts';
import { selectedAtom } from '../../state/selection.ts';
import type { ItemHandlers } from './ListingItem.tsx';

export interface ItemHandlerOptions {
  items: ResourceItem[];
  /** Items per row (arrow keys move by a row). */
  cols: number;
  multiple: boolean;
  singleClick: boolean;
  /** The user may move items (rename permission): dragging is allowed. */
  canMove: boolean;
  /** The listing is being replaced by the next folder's: every event is ignored. */
  busy: boolean;
  open(index: number, viaKeyboard?: boolean): void;
  /** Moves the keyboard cursor to an item and focuses it. */
  focusItem(index: number): void;
  /** Moves the keyboard cursor to a clicked item (it already has the focus). */
  cursorTo(index: number): void;
}

export function useItemHandlers(o: ItemHandlerOptions): { handlers: ItemHandlers; dropTarget: number | undefined; endDrag(): void } {
  const { transferTo } = useFileOps();
  const [selectedPaths, setSelectedPaths] = useAtom(selectedAtom);
  const [dropTarget, setDropTarget] = useState<number | undefined>(undefined);
  const lastClick = useRef<LastClick | undefined>(undefined);
  const dragging = useRef<number[] | null>(null);
  const { items, cols, multiple, singleClick, canMove, busy, open, focusItem, cursorTo } = o;

  // A double click needs both clicks on the same entry of the same listing: after a reload the
  // same index may be another entry.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs for each new listing, which is what items says
  useEffect(() => {
    lastClick.current = undefined;
  }, [items]);

  const handlers: ItemHandlers = useMemo(() => {
    // The selection is kept by path; the rules below work on positions in this listing.
    const selected = indexesOf(selectedPaths, items);
    const selectedSet = new Set(selected);
    const setSelected = (indexes: number[]) => setSelectedPaths(pathsOf(indexes, items));
    if (busy) {
      const ignore = () => undefined;
      return {
        click: (_index: number, e: MouseEvent) => e.stopPropagation(),
        keyDown: ignore,
        dragStart: (_index: number, e: DragEvent) => e.preventDefault(),
        dragOver: ignore,
        dragLeave: ignore,
        drop: ignore,
      };
    }
    return {
      click(index: number, e: MouseEvent) {
        e.stopPropagation();
        const r = click(selected, lastClick.current, { index, ctrl: e.ctrlKey || e.metaKey, shift: e.shiftKey, time: e.timeStamp }, { singleClick, multiple });
        lastClick.current = r.last;
        setSelected(r.selected);
        cursorTo(index);
        if (r.open) open(index);
      },
      keyDown(index: number, e: KeyboardEvent) {
        const rtl = document.documentElement.dir === 'rtl';
        let delta = 0;
        if (e.key === 'ArrowDown') delta = cols;
        else if (e.key === 'ArrowUp') delta = -cols;
        else if (e.key === 'ArrowRight' && cols > 1) delta = rtl ? -1 : 1;
        else if (e.key === 'ArrowLeft' && cols > 1) delta = rtl ? 1 : -1;
        else if (e.key === 'Home') delta = -items.length;
        else if (e.key === 'End') delta = items.length;
        else if (e.key === 'Enter') {
          e.preventDefault();
          open(index, true);
          return;
        } else if (e.key === ' ') {
          e.preventDefault();
          setSelected(toggle(selected, index));
          return;
        }
        if (delta === 0) return;
        e.preventDefault();
        const next = moveCursor(index, delta, items.length);
        if (next === undefined) return;
        if (e.shiftKey) setSelected(range(selected[0] ?? index, next));
        else if (!(e.ctrlKey || e.metaKey) && !multiple) setSelected([next]);
        focusItem(next);
      },
      dragStart(index: number, e: DragEvent) {
        if (!canMove) {
          e.preventDefault();
          return;
        }
        const group = selectedSet.has(index) ? selected : [index];
        if (!selectedSet.has(index)) setSelected([index]);
        dragging.current = group;
        e.dataTransfer.effectAllowed = 'move';
        e.dataTransfer.setData('application/x-fm-items', String(group.length));
      },
      dragOver(index: number, e: DragEvent) {
        if (!dragging.current || dragging.current.includes(index)) return;
        e.preventDefault();
        e.dataTransfer.dropEffect = 'move';
        setDropTarget(index);
      },
      dragLeave(index: number) {
        setDropTarget((d) => (d === index ? undefined : d));
      },
      drop(index: number, e: DragEvent) {
        const group = dragging.current;
        dragging.current = null;
        setDropTarget(undefined);
        if (!group || group.includes(index)) return;
        e.preventDefault();
        void transferTo(
          'move',
          group.map((i) => items[i]),
          items[index].path,
          { navigateAfter: false },
        ).catch(() => undefined);
      },
    };
  }, [selectedPaths, singleClick, multiple, open, cols, items, focusItem, cursorTo, canMove, busy, setSelectedPaths, transferTo]);

  const endDrag = () => {
    dragging.current = null;
    setDropTarget(undefined);
  };
  return { handlers, dropTarget, endDrag };
}
