/**
 * Byte sizes as people type them: `10MB`, `1.5GiB`, `512k`, `1048576`.
 * A kilobyte is 1024 bytes, as everywhere in fm's UI (spec §9: a megabyte is 1048576 bytes);
 * `KB` and `KiB` mean the same.
 */

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};

/** Parses a size into whole bytes (rounded to the nearest byte); throws on anything else. */
export function parseSize(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(String(raw));
  if (!m) throw new Error(`invalid size "${raw}" (use e.g. 10MB, 1.5GiB or a number of bytes)`);
  const factor = UNITS[m[2].toLowerCase()];
  if (factor === undefined) throw new Error(`invalid size unit "${m[2]}" in "${raw}" (use B, KB, MB, GB or TB)`);
  const bytes = Math.round(Number(m[1]) * factor);
  if (!Number.isSafeInteger(bytes)) throw new Error(`size "${raw}" is too large`);
  return bytes;
}

/** Formats bytes the way the UI shows them: the largest unit that keeps the number at least 1. */
export function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/\.?0+$/, '');
  return `${text}${units[i]}`;
}
