/**
 * The image zoom viewer (spec §2 "Image zoom viewer", §9 "Zoom"): wheel steps of 0.25 between
 * 0.25 and about 4 + natural/displayed size, pinch, drag to pan, double tap cycling 1, 2, 4.
 */
import { useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { clampZoom, DOUBLE_TAP_MS, DRAG_DISABLE_MS, maxZoom, nextDoubleTapScale, wheelZoom, ZOOM_STEP } from '../../lib/zoom.ts';

interface View {
  scale: number;
  x: number;
  y: number;
}

const RESET: View = { scale: 1, x: 0, y: 0 };

/** A point of the window (client px) as an offset from the centre of `box`. */
function centreOffset(box: HTMLElement, clientX: number, clientY: number) {
  const r = box.getBoundingClientRect();
  return [clientX - (r.left + r.width / 2), clientY - (r.top + r.height / 2)] as const;
}

export function ImageViewer({ src, alt, onError }: { src: string; alt: string; onError?: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const img = useRef<HTMLImageElement>(null);
  const [view, setView] = useState<View>(RESET);
  const [max, setMax] = useState(5);
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const gesture = useRef<{ dist: number; scale: number } | null>(null);
  const drag = useRef<{ x: number; y: number; vx: number; vy: number } | null>(null);
  const lastZoom = useRef(0);
  const lastTap = useRef(0);

  /** Zooms to `scale` keeping the point (px from the box centre) in place. */
  const zoomAt = (scale: number, px: number, py: number) => {
    lastZoom.current = performance.now();
    setView((v) => {
      const s = clampZoom(scale, max);
      if (s === 1 || s < 1) return { scale: s, x: 0, y: 0 };
      const k = s / v.scale;
      return { scale: s, x: px - (px - v.x) * k, y: py - (py - v.y) * k };
    });
  };

  // Wheel zoom needs a non-passive listener to keep the page from scrolling.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const [px, py] = centreOffset(box.current!, e.clientX, e.clientY);
      setView((v) => {
        const s = wheelZoom(v.scale, e.deltaY, max);
        if (s <= 1) return { scale: s, x: 0, y: 0 };
        const k = s / v.scale;
        return { scale: s, x: px - (px - v.x) * k, y: py - (py - v.y) * k };
      });
      lastZoom.current = performance.now();
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [max]);

  const onPointerDown = (e: ReactPointerEvent) => {
    box.current?.setPointerCapture(e.pointerId);
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.current.size === 2) {
      const [a, b] = [...pointers.current.values()];
      gesture.current = { dist: Math.hypot(a.x - b.x, a.y - b.y), scale: view.scale };
      drag.current = null;
      return;
    }
    const now = performance.now();
    if (now - lastTap.current < DOUBLE_TAP_MS) {
      lastTap.current = 0;
      const [px, py] = centreOffset(box.current!, e.clientX, e.clientY);
      zoomAt(nextDoubleTapScale(view.scale), px, py);
      return;
    }
    lastTap.current = now;
    // A drag right after a zoom gesture would jump: wait for the fingers to settle.
    if (view.scale > 1 && now - lastZoom.current > DRAG_DISABLE_MS) drag.current = { x: e.clientX, y: e.clientY, vx: view.x, vy: view.y };
  };
  const onPointerMove = (e: ReactPointerEvent) => {
    if (!pointers.current.has(e.pointerId)) return;
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (gesture.current && pointers.current.size === 2) {
      const [a, b] = [...pointers.current.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      const [px, py] = centreOffset(box.current!, (a.x + b.x) / 2, (a.y + b.y) / 2);
      zoomAt((gesture.current.scale * dist) / Math.max(1, gesture.current.dist), px, py);
      return;
    }
    const d = drag.current;
    if (d) setView((v) => ({ ...v, x: d.vx + e.clientX - d.x, y: d.vy + e.clientY - d.y }));
  };
  const onPointerUp = (e: ReactPointerEvent) => {
    pointers.current.delete(e.pointerId);
    if (pointers.current.size < 2) gesture.current = null;
    if (pointers.current.size === 0) drag.current = null;
  };

  return (
    // The picture takes the focus so that +, - and 0 zoom it from the keyboard, as the wheel and a pinch do;
    // it carries the name (the <img> inside is its drawing only).
    <div
      ref={box}
      className={`image-viewer${view.scale > 1 ? ' image-viewer-zoomed' : ''}`}
      role="img"
      aria-label={alt}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a picture the keyboard zooms (+, -, 0) has to hold the focus
      tabIndex={0}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onKeyDown={(e) => {
        if (e.key === '+' || e.key === '=') zoomAt(view.scale + ZOOM_STEP, view.x, view.y);
        else if (e.key === '-') zoomAt(view.scale - ZOOM_STEP, view.x, view.y);
        else if (e.key === '0') setView(RESET);
      }}
      data-scale={view.scale}
    >
      <img
        ref={img}
        src={src}
        alt=""
        draggable={false}
        style={{ transform: `translate(${view.x}px, ${view.y}px) scale(${view.scale})` }}
        onLoad={(e) => {
          const el = e.currentTarget;
          setMax(maxZoom(el.naturalWidth, el.clientWidth));
        }}
        onError={onError}
      />
    </div>
  );
}
