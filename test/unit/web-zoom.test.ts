/** The image zoom viewer's steps and limits (spec §9 "Zoom"). */
import { describe, expect, it } from 'vitest';
import { clampZoom, maxZoom, nextDoubleTapScale, wheelZoom, ZOOM_MIN, ZOOM_STEP } from '../../web/lib/zoom.ts';

describe('zoom', () => {
  it('steps by 0.25 per wheel notch between 0.25 and about 4 plus the natural/displayed ratio', () => {
    expect([ZOOM_STEP, ZOOM_MIN]).toEqual([0.25, 0.25]);
    expect(maxZoom(4000, 1000)).toBe(8);
    expect(maxZoom(0, 0)).toBe(5);
    expect(wheelZoom(1, -100, 5)).toBe(1.25);
    expect(wheelZoom(1, 100, 5)).toBe(0.75);
    expect(wheelZoom(0.25, 100, 5)).toBe(0.25);
    expect(wheelZoom(5, -100, 5)).toBe(5);
    expect(clampZoom(9, 5)).toBe(5);
  });

  it('cycles double taps through 1, 2, 4 and back to 1', () => {
    expect([1, 2, 4, 3].map(nextDoubleTapScale)).toEqual([2, 4, 1, 1]);
  });
});
