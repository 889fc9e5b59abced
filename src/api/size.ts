/**
 * Byte sizes as people type them, one parser for the server, the CLI and the UI: `10MB`,
 * `1.5GiB`, `512k`, `.5M`, `1048576`. A kilobyte is 1024 bytes, as everywhere in fm (spec §9: a
 * megabyte is 1048576 bytes); `K`, `KB` and `KiB` mean the same. A thin adapter over the `bytes`
 * package, which does the units and the formatting: fm also accepts one-letter and IEC units
 * and rounds to the nearest byte (`bytes` floors, and reads `12abc` as 12). No node builtins.
 */
import bytes from 'bytes';

/** The unit as `bytes` names it, from what fm accepts (any case): '' and B, K/KB/KiB … T/TB/TiB. */
const UNIT = /^(?:(b)|([kmgt])(?:i?b)?)$/i;

/** Parses a size into whole bytes (rounded to the nearest byte); throws an Error naming the size otherwise. */
export function parseSize(raw: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(String(raw));
  if (!m) throw new Error(`invalid size "${raw}" (use e.g. 10MB, 1.5GiB or a number of bytes)`);
  const unit = m[2] === '' ? ['', 'b'] : UNIT.exec(m[2]);
  if (!unit) throw new Error(`invalid size unit "${m[2]}" in "${raw}" (use B, KB, MB, GB or TB)`);
  const factor = bytes.parse(unit[1] ? '1b' : `1${unit[2].toLowerCase()}b`) ?? Number.NaN;
  const n = Math.round(Number(m[1]) * factor);
  if (!Number.isSafeInteger(n)) throw new Error(`size "${raw}" is too large`);
  return n;
}

/** Formats bytes the way the UI shows them: the largest unit up to TB that keeps the number at least 1, two decimals at most. */
export function formatSize(n: number): string {
  const unit = n >= 1024 ** 5 ? 'TB' : undefined;
  return bytes.format(n, { unit, unitSeparator: '', decimalPlaces: 2 }) ?? `${n}B`;
}
