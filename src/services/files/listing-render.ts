/**
 * The pieces of a listing's JSON, as self-contained functions: no imports and no outer
 * variables, because listing-worker.ts also ships their source (`fn.toString()`) to its worker
 * threads. The main thread and the workers thus write byte-identical JSON.
 */
import type { FileType } from '../../api/files.ts';

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
