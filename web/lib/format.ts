/** Size and date formatting for the listing and the info prompt, per locale (binary units). */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(tag: string, digits: number): Intl.NumberFormat {
  const key = `${tag}|${digits}`;
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(tag, { maximumFractionDigits: digits });
    numberFormats.set(key, f);
  }
  return f;
}

/** `1536` → `1.5 KiB` (units of 1024; a megabyte is 1048576 bytes). */
export function formatSize(bytes: number, tag = 'en'): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${numberFormat(tag, unit === 0 ? 0 : 1).format(value)} ${UNITS[unit]}`;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** What a date no browser can show reads as (invalid, or past ±8.64e15 ms as an old share's expiry may be). */
export const NO_DATE = '—';

/** False for an Invalid Date: Intl and toISOString throw "Invalid time value" on one. */
export function isShowableDate(date: Date): boolean {
  return Number.isFinite(date.getTime());
}

/** A relative time ("3 hours ago") in the locale; thresholds as humans round them. */
export function formatRelative(date: Date, tag = 'en', now = Date.now()): string {
  if (!isShowableDate(date)) return NO_DATE;
  const rtf = new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
  const diff = date.getTime() - now;
  const abs = Math.abs(diff);
  if (abs < 45 * SECOND) return rtf.format(0, 'second');
  if (abs < 45 * MINUTE) return rtf.format(Math.round(diff / MINUTE), 'minute');
  if (abs < 22 * HOUR) return rtf.format(Math.round(diff / HOUR), 'hour');
  if (abs < 26 * DAY) return rtf.format(Math.round(diff / DAY), 'day');
  if (abs < 320 * DAY) return rtf.format(Math.round(diff / (30.44 * DAY)), 'month');
  return rtf.format(Math.round(diff / (365.25 * DAY)), 'year');
}

/** A full date and time in the locale. */
export function formatExact(date: Date, tag = 'en'): string {
  if (!isShowableDate(date)) return NO_DATE;
  return new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** The listing's date: exact when the user asked for it (dateFormat), else relative. */
export function formatModified(iso: string, tag: string, exact: boolean, now = Date.now()): string {
  const d = new Date(iso);
  if (!isShowableDate(d)) return '';
  return exact ? formatExact(d, tag) : formatRelative(d, tag, now);
}
