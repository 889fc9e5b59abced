import { useEffect, useRef, type RefObject } from 'react';

const SCROLL_THROTTLE_MS = 100;

/**
 * Calls `grow` when the end of the scroller comes within two screens: on scroll (throttled,
 * spec §9) and after each render that changed the row count, so a short first page fills the
 * screen. Nothing happens once everything is shown.
 */
export function useGrowOnScroll(scrollRef: RefObject<HTMLElement | null>, complete: boolean, rowCount: number, grow: () => void): void {
  const latest = useRef(grow);
  latest.current = grow;
  const done = useRef(complete);
  done.current = complete;

  // biome-ignore lint/correctness/useExhaustiveDependencies: new rows may still leave the end in view: check again (no scroll event comes)
  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const check = () => {
      if (!done.current && el.scrollHeight - el.scrollTop - el.clientHeight < el.clientHeight * 2) latest.current();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        check();
      }, SCROLL_THROTTLE_MS);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    check();
    return () => {
      el.removeEventListener('scroll', onScroll);
      if (timer) clearTimeout(timer);
    };
  }, [scrollRef, rowCount]);
}
