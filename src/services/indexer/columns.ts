/**
 * Typed arrays for the index's columns, sized so that freeing one never moves glibc malloc's
 * mmap threshold. malloc maps blocks from 128 KiB up and, when such a block is freed, raises
 * its threshold to that block's size (up to 32 MiB). A build grows its columns and name buffer
 * by doubling: once the outgrown 16 MiB name buffer was freed, every later block under 16 MiB
 * (the final columns, the scan workers' own allocations) was carved from malloc's heaps and
 * arenas, where freed space stays resident (~15 MiB more after a build than after a restart).
 * So an array of more than 64 KiB is made at least 33 MiB long: mapped whatever the threshold,
 * never raising it when freed, and only its pages that are written become resident (the
 * untouched rest is address space, not memory).
 */

import { freeNow } from './free-now.ts';

type Column = Int32Array | Uint32Array | Float64Array | Uint8Array;
type ColumnConstructor<T extends Column> = { new (n: number): T; readonly BYTES_PER_ELEMENT: number };

const SMALL = 64 << 10;
const MAPPED = 33 << 20;

/** How many elements of `bytesPerElement` to allocate for at least `min`. */
export function columnLength(bytesPerElement: number, min: number): number {
  return min * bytesPerElement <= SMALL ? min : Math.max(min, Math.ceil(MAPPED / bytesPerElement));
}

/** `a`, or a copy with room for at least `min` elements (its length doubled, or `min` when exact); the old one is freed now. */
export function grownColumn<T extends Column>(a: T, min: number, exact = false): T {
  if (a.length >= min) return a;
  let cap = a.length;
  while (cap < min) cap *= 2;
  const b = new (a.constructor as ColumnConstructor<T>)(columnLength(a.BYTES_PER_ELEMENT, exact ? min : cap));
  b.set(a);
  freeNow(a);
  return b;
}
