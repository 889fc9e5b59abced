/** The shell panel's height: dragged or moved with the arrow keys on its divider, kept within the window, published for the listing. */
import { type KeyboardEvent, type PointerEvent, useEffect, useRef, useState } from 'react';
import { clampShellHeight, SHELL_DEFAULT_EM, SHELL_RESIZE_THROTTLE_MS } from '../../lib/shellProtocol.ts';

const DIVIDER_PX = 6;

function emPx(): number {
  return parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
}

const clamp = (h: number) => clampShellHeight(h, emPx(), DIVIDER_PX, window.innerHeight);

export function useShellHeight() {
  const [height, setHeight] = useState(() => clamp(SHELL_DEFAULT_EM * emPx()));
  const resize = useRef<{ startY: number; startH: number; last: number } | null>(null);

  // The listing keeps its last rows reachable above the panel.
  useEffect(() => {
    const root = document.documentElement;
    root.style.setProperty('--shell-height', `${height}px`);
    return () => {
      root.style.removeProperty('--shell-height');
    };
  }, [height]);
  useEffect(() => {
    const onResize = () => setHeight((h) => clamp(h));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  /** Handlers for the divider element. */
  const divider = {
    onPointerDown: (e: PointerEvent<HTMLDivElement>) => {
      e.currentTarget.setPointerCapture(e.pointerId);
      resize.current = { startY: e.clientY, startH: height, last: 0 };
    },
    onPointerMove: (e: PointerEvent<HTMLDivElement>) => {
      const r = resize.current;
      if (!r) return;
      const now = performance.now();
      if (now - r.last < SHELL_RESIZE_THROTTLE_MS) return;
      r.last = now;
      setHeight(clamp(r.startH + r.startY - e.clientY));
    },
    onPointerUp: () => {
      resize.current = null;
    },
    onKeyDown: (e: KeyboardEvent<HTMLDivElement>) => {
      const step = emPx() * 2;
      if (e.key === 'ArrowUp') setHeight((h) => clamp(h + step));
      else if (e.key === 'ArrowDown') setHeight((h) => clamp(h - step));
    },
  };
  return { height, divider };
}
