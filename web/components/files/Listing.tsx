/**
 * The folder listing: sortable header, Folders and Files sections, list / mosaic / gallery views,
 * virtualised (only visible rows exist in the page) and growing from 50 items as the user scrolls
 * (spec §4 "Pagination", §9). Selection, keyboard and drag-and-drop to move.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useAtom, useAtomValue } from 'jotai';
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { useLocaleTag } from '../../i18n/index.ts';
import { filesUrl } from '../../lib/paths.ts';
import { can } from '../../lib/perm.ts';
import { buildRows, columnsFor, rowOf, type Row } from '../../lib/rows.ts';
import { indexesOf } from '../../lib/selection.ts';
import { userAtom } from '../../state/auth.ts';
import type { Listing as ListingData } from '../../state/files.ts';
import { multipleAtom, selectedAtom } from '../../state/selection.ts';
import { Icon } from '../ui/Icon.tsx';
import { useNarrow } from '../ui/useNarrow.ts';
import { ListingItem } from './ListingItem.tsx';
import { SortHeader } from './SortHeader.tsx';
import { useGrowOnScroll } from './useGrowOnScroll.ts';
import { useItemHandlers } from './useItemHandlers.ts';
import { useCutPaths, useListMeasure } from './useListMeasure.ts';
import { useStickyCursor } from './useStickyCursor.ts';

/** Items rendered before the first scroll. */
export const INITIAL_ITEMS = 50;
const HEADING_HEIGHT = 44;
const LIST_ROW = 52;
const MOSAIC_ROW = 76;
const GAP = 8;
/** Mosaic column width (spec §9). */
const MOSAIC_COLUMN = 280;

export function Listing({ listing, scrollRef, busy = false }: { listing: ListingData; scrollRef: RefObject<HTMLElement | null>; busy?: boolean }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const narrow = useNarrow();
  const [, navigate] = useLocation();
  const user = useAtomValue(userAtom)!;
  const [selected, setSelected] = useAtom(selectedAtom);
  const multiple = useAtomValue(multipleAtom);
  const { items, dirCount } = listing;
  const mode = user.viewMode;
  const listRef = useRef<HTMLDivElement>(null);
  const [limit, setLimit] = useState(INITIAL_ITEMS);
  const [cursor, setCursor] = useState<number | undefined>(undefined);
  useStickyCursor(items, cursor, setCursor);
  const { width, scrollMargin } = useListMeasure(listRef, scrollRef);
  const focusPending = useRef(false);
  const openedByKeyboard = useRef(false);
  const selectedSet = useMemo(() => new Set(selected), [selected]);
  const canMove = can(user, 'rename');
  const cut = useCutPaths(listing.resource.path);

  // A new folder starts again from the top with 50 items; keyboard users keep the focus in the list.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs again for each new folder, which is what the path says
  useEffect(() => {
    setLimit(INITIAL_ITEMS);
    setCursor(undefined);
    scrollRef.current?.scrollTo({ top: 0 });
    if (!openedByKeyboard.current) return;
    openedByKeyboard.current = false;
    const id = requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>('[role=option][tabindex="0"]')?.focus({ preventScroll: true }));
    return () => cancelAnimationFrame(id);
  }, [listing.resource.path, scrollRef]);

  const cols = mode === 'list' ? 1 : columnsFor(width, mode === 'mosaic' ? MOSAIC_COLUMN : narrow ? 150 : 200, GAP);
  const shown = Math.min(limit, items.length);
  const rows = useMemo(() => buildRows(dirCount, shown, cols), [dirCount, shown, cols]);
  const tile = mode === 'mosaic gallery' ? Math.floor((width - (cols - 1) * GAP) / cols) : 0;
  const itemRowHeight = mode === 'list' ? LIST_ROW : mode === 'mosaic' ? MOSAIC_ROW : tile + GAP;
  const heightOf = useCallback((r: Row) => (r.kind === 'heading' ? HEADING_HEIGHT : itemRowHeight), [itemRowHeight]);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => heightOf(rows[i]),
    overscan: 6,
    scrollMargin,
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the virtualizer keeps measured sizes: measure again when rows change height or width
  useEffect(() => virtualizer.measure(), [virtualizer, itemRowHeight, cols]);

  useGrowOnScroll(scrollRef, shown >= items.length, rows.length, () => {
    const el = scrollRef.current!;
    const perScreen = Math.ceil(el.clientHeight / Math.max(1, itemRowHeight)) * cols;
    setLimit((l) => Math.min(items.length, l + perScreen * 2));
  });

  const open = useCallback(
    (index: number, viaKeyboard = false) => {
      const item = items[index];
      if (!item) return;
      openedByKeyboard.current = viaKeyboard && item.isDir;
      navigate(filesUrl(item.path, item.isDir));
    },
    [items, navigate],
  );

  const focusItem = useCallback(
    (index: number) => {
      if (index >= limit) setLimit(Math.min(items.length, index + INITIAL_ITEMS));
      setCursor(index);
      // Focus at once when the entry is on the page, so that a key pressed right after (Enter)
      // acts on it; the effect below then scrolls it into view (and renders it first if needed).
      listRef.current?.querySelector<HTMLElement>(`[data-index="${index}"]`)?.focus({ preventScroll: true });
      focusPending.current = true;
    },
    [limit, items.length],
  );

  useEffect(() => {
    if (!focusPending.current || cursor === undefined) return;
    const r = rowOf(rows, cursor);
    if (r < 0) return;
    virtualizer.scrollToIndex(r, { align: 'auto' });
    const id = requestAnimationFrame(() => {
      const el = listRef.current?.querySelector<HTMLElement>(`[data-index="${cursor}"]`);
      if (el) {
        el.focus({ preventScroll: true });
        focusPending.current = false;
      }
    });
    return () => cancelAnimationFrame(id);
  });

  const { handlers, dropTarget, endDrag } = useItemHandlers({
    items,
    cols,
    multiple,
    singleClick: user.singleClick,
    canMove,
    busy,
    open,
    focusItem,
    cursorTo: setCursor,
  });

  const exactDates = user.dateFormat;
  const tabbable = cursor ?? indexesOf(selected.slice(0, 1), items)[0] ?? 0;

  if (items.length === 0) {
    return (
      <div className="listing-empty">
        <Icon name="folderOpen" size={64} />
        <p>{t('files.lonely')}</p>
      </div>
    );
  }

  const virtualRows = virtualizer.getVirtualItems();
  return (
    <div className={`listing listing-${mode === 'mosaic gallery' ? 'gallery' : mode}${busy ? ' listing-busy' : ''}`} aria-busy={busy}>
      <SortHeader />
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: a click beside the entries clears the selection; Escape does it from the keyboard (useFileShortcuts) */}
      <div
        ref={listRef}
        className="listing-body"
        role="listbox"
        aria-multiselectable="true"
        aria-label={t('files.listing')}
        style={{ blockSize: virtualizer.getTotalSize() }}
        onClick={() => {
          if (!multiple && !busy) setSelected([]);
        }}
        onDragEnd={endDrag}
      >
        {virtualRows.map((v) => {
          const row = rows[v.index];
          const style = { transform: `translateY(${v.start - scrollMargin}px)`, blockSize: v.size };
          if (row.kind === 'heading') {
            return (
              <h2 key={`h-${row.section}`} className="listing-heading" style={style} role="presentation">
                {t(row.section === 'folders' ? 'files.folders' : 'files.files')}
              </h2>
            );
          }
          const cells = [];
          for (let i = row.start; i < row.end; i++) {
            cells.push(
              <ListingItem
                key={items[i].path}
                item={items[i]}
                index={i}
                count={listing.total}
                selected={selectedSet.has(items[i].path)}
                tabbable={i === tabbable}
                dropTarget={dropTarget === i}
                cut={cut.has(items[i].path)}
                draggable={canMove}
                multiple={multiple}
                mode={mode}
                tag={tag}
                exactDates={exactDates}
                handlers={handlers}
              />,
            );
          }
          return (
            <div
              key={`r-${row.start}`}
              className="listing-row"
              style={{ ...style, gridTemplateColumns: mode === 'list' ? undefined : `repeat(${cols}, minmax(0, 1fr))` }}
              role="presentation"
            >
              {cells}
            </div>
          );
        })}
      </div>
    </div>
  );
}
