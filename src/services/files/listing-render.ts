/**
 * The pieces of a listing's JSON, as self-contained functions: no imports and no outer
 * variables, because listing-worker.ts also ships their source (`fn.toString()`) to its worker
 * threads. The main thread and the workers thus write byte-identical JSON.
 */
import type { FileType } from '../../api/files.ts';

/**
 * A key whose plain string order is the natural, case-insensitive name order: lower-cased,
 * accents stripped, and each run of digits prefixed by its length so that 9 < 10.
 */
export function nameSortKey(name: string): string {
  let key = name.toLowerCase();
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(key)) key = key.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  // A loop rather than replace() with a callback: this runs for every entry of a listing.
  let out = '';
  let from = 0;
  let i = 0;
  const len = key.length;
  while (i < len) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) {
      i++;
      continue;
    }
    const runStart = i;
    while (i < len && key.charCodeAt(i) >= 48 && key.charCodeAt(i) <= 57) i++;
    let digits = runStart;
    while (digits < i - 1 && key.charCodeAt(digits) === 48) digits++; // leading zeros
    // '1'..'9' for lengths 1-9, then ':' '@' 'A'… (all below the lower-case letters).
    out += key.slice(from, runStart) + String.fromCharCode(0x30 + Math.min(i - digits, 42)) + key.slice(digits, i);
    from = i;
  }
  return from === 0 ? key : out + key.slice(from);
}

/**
 * Returns a `Date#toISOString()` of a time in ms that builds no Date per entry: the date part
 * is cached per day (entries of one folder mostly share a few days), the time is arithmetic.
 */
export function makeIsoTime(): (ms: number) => string {
  let isoDay = Number.NaN;
  let isoDayPrefix = '';
  const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
  return (ms: number): string => {
    const t = Math.floor(ms);
    const day = Math.floor(t / 86_400_000);
    if (day !== isoDay) {
      const iso = new Date(day * 86_400_000).toISOString();
      if (iso.length !== 24) return new Date(t).toISOString(); // years beyond 9999 or before 0
      isoDay = day;
      isoDayPrefix = iso.slice(0, 11);
    }
    let rem = t - day * 86_400_000;
    const h = Math.floor(rem / 3_600_000);
    rem -= h * 3_600_000;
    const m = Math.floor(rem / 60_000);
    rem -= m * 60_000;
    const sec = Math.floor(rem / 1000);
    return `${isoDayPrefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${pad3(rem - sec * 1000)}Z`;
  };
}

/** Returns a JSON string quoter that skips JSON.stringify for strings needing no escapes. */
export function makeQuote(): (s: string) => string {
  // eslint-disable-next-line no-control-regex
  const safe = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
  return (s: string) => (safe.test(s) ? `"${s}"` : JSON.stringify(s));
}

/** One listing item as JSON, keys in FileInfoDto order (what JSON.stringify of the DTO gives). */
export function itemJson(
  quote: (s: string) => string,
  path: string,
  name: string,
  size: number,
  extension: string,
  modified: string,
  mode: number,
  isDir: boolean,
  isSymlink: boolean,
  type: FileType,
): string {
  return (
    `{"path":${quote(path)},"name":${quote(name)},"size":${size},"extension":${quote(extension)},` +
    `"modified":"${modified}","mode":${mode},"isDir":${isDir},"isSymlink":${isSymlink},"type":"${type}"}`
  );
}
