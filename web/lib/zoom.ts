/** The image zoom viewer's numbers (spec §9 "Zoom"). */

export const ZOOM_STEP = 0.25;
export const ZOOM_MIN = 0.25;
/** The base of the maximum; the ratio of natural to displayed size is added to it. */
export const ZOOM_MAX_BASE = 4;
/** Double taps cycle through these scales. */
export const DOUBLE_TAP_SCALES = [1, 2, 4] as const;
/** A drag starting this soon after a zoom gesture does not pan. */
export const DRAG_DISABLE_MS = 200;
/** Two taps within this window are a double tap (spec §9). */
export const DOUBLE_TAP_MS = 300;

/** The largest scale: about 4 plus the ratio of natural to displayed width. */
export function maxZoom(naturalWidth: number, displayedWidth: number): number {
  const ratio = displayedWidth > 0 && naturalWidth > 0 ? naturalWidth / displayedWidth : 1;
  return ZOOM_MAX_BASE + ratio;
}

export function clampZoom(scale: number, max: number): number {
  return Math.min(max, Math.max(ZOOM_MIN, scale));
}

/** One wheel notch: up zooms in, down zooms out, by one step. */
export function wheelZoom(scale: number, deltaY: number, max: number): number {
  if (deltaY === 0) return scale;
  return clampZoom(scale + (deltaY < 0 ? ZOOM_STEP : -ZOOM_STEP), max);
}

/** The next scale of the double-tap cycle 1 → 2 → 4 → 1 (from any other scale: back to 1). */
export function nextDoubleTapScale(scale: number): number {
  const i = DOUBLE_TAP_SCALES.findIndex((s) => Math.abs(s - scale) < 1e-6);
  return i < 0 ? 1 : DOUBLE_TAP_SCALES[(i + 1) % DOUBLE_TAP_SCALES.length];
}
