/** The upload chunk size field of the global settings (spec §5 "Chunk size", §9): text ↔ bytes. */
import { parseSize } from '../../src/api/size.ts';

/** Used for anything that does not parse (spec §9: 1 MiB). */
export const DEFAULT_CHUNK_SIZE = 1024 * 1024;

/** The field commits this long after typing stops (spec §4, §9). */
export const CHUNK_SIZE_DEBOUNCE_MS = 1500;

const UNITS: [string, number][] = [
  ['TB', 1024 ** 4],
  ['GB', 1024 ** 3],
  ['MB', 1024 ** 2],
  ['KB', 1024],
  ['B', 1],
];

/** The field's grammar (spec §5): a number with an optional decimal part and an optional unit B, K, KB … T, TB, any case. */
const FIELD = /^\s*\d+(?:\.\d+)?\s*(?:b|kb?|mb?|gb?|tb?)?\s*$/i;

/**
 * `"10MB"`, `"1.5 g"`, `"512k"`, `"4096"` → bytes through fm's one size parser (src/api/size.ts,
 * multiples of 1024). Anything outside the field's grammar, and a size that rounds to 0 bytes,
 * gives 1 MiB.
 */
export function parseChunkSize(input: string): number {
  if (!FIELD.test(input)) return DEFAULT_CHUNK_SIZE;
  try {
    const n = parseSize(input);
    return n > 0 ? n : DEFAULT_CHUNK_SIZE;
  } catch {
    return DEFAULT_CHUNK_SIZE;
  }
}

/**
 * Bytes → the shortest text in the largest unit that reads back as exactly the same number of
 * bytes (`10485760` → `"10MB"`, `1572864` → `"1.5MB"`, `1000` → `"1000B"`).
 */
export function formatChunkSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  for (const [unit, factor] of UNITS) {
    const value = bytes / factor;
    if (value < 1 && unit !== 'B') continue;
    const shown = Math.round(value * 1000) / 1000;
    if (Math.round(shown * factor) === bytes) return `${shown}${unit}`;
  }
  return `${bytes}B`;
}
