/** The share dialog's duration field (spec §5 "Share duration", §9). */

export const SHARE_UNITS = ['seconds', 'minutes', 'hours', 'days'] as const;
export type ShareUnit = (typeof SHARE_UNITS)[number];
export const DEFAULT_SHARE_UNIT: ShareUnit = 'hours';
export const MIN_SHARE_DURATION = 1;
export const MAX_SHARE_DURATION = 2147483647;

/**
 * The duration typed in the field: `0` for a permanent link (empty or zero), the whole number
 * for 1–2147483647, or undefined when it is not acceptable (negative, fractional, too large, text).
 */
export function parseDuration(input: string): number | undefined {
  const t = input.trim();
  if (t === '') return 0;
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  if (n === 0) return 0;
  return n >= MIN_SHARE_DURATION && n <= MAX_SHARE_DURATION ? n : undefined;
}
