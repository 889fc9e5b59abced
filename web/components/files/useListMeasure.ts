import { useAtomValue } from 'jotai';
import { type RefObject, useLayoutEffect, useMemo, useState } from 'react';
import { samePath } from '../../lib/paths.ts';
import { clipboardAtom } from '../../state/clipboard.ts';

/** The list's width and its offset inside the scrolling element (the virtualiser's scroll margin), kept up to date. */
export function useListMeasure(listRef: RefObject<HTMLElement | null>, scrollRef: RefObject<HTMLElement | null>): { width: number; scrollMargin: number } {
  const [width, setWidth] = useState(0);
  const [scrollMargin, setScrollMargin] = useState(0);
  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const measure = () => {
      setWidth(el.clientWidth);
      const scroller = scrollRef.current;
      if (scroller) setScrollMargin(el.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop);
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [listRef, scrollRef]);
  return { width, scrollMargin };
}

/** Paths cut to the clipboard from this folder: the listing shows them faded until pasted. */
export function useCutPaths(folder: string): Set<string> {
  const clipboard = useAtomValue(clipboardAtom);
  return useMemo(() => new Set(clipboard?.key === 'x' && samePath(clipboard.path, folder) ? clipboard.items.map((i) => i.from) : []), [clipboard, folder]);
}
