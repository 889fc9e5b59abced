/**
 * Where each entry's name lies in the store's name buffer (store.ts), in 1.5 bytes per entry
 * rather than a 4-byte end offset: names are appended in id order, so a name starts where the
 * previous id's ends; each id keeps its length in a byte (LONG: longer, in a map — names in
 * fm's string form reach 765 bytes) and every 8th id its start, from which a start is summed.
 */
import { grownColumn } from './columns.ts';

const LONG = 255;
/** Ids per recorded start. */
const BLOCK = 8;

export class NameOffsets {
  private lengths: Uint8Array;
  private starts: Uint32Array;
  private readonly long = new Map<number, number>();
  /** Bytes used: where the next name starts. */
  used = 0;

  constructor(capacity: number) {
    this.lengths = new Uint8Array(capacity);
    this.starts = new Uint32Array(Math.ceil(capacity / BLOCK));
  }

  /** Ids there is room for. */
  get capacity(): number {
    return Math.min(this.lengths.length, this.starts.length * BLOCK);
  }

  grow(min: number, exact: boolean): void {
    this.lengths = grownColumn(this.lengths, min, exact);
    this.starts = grownColumn(this.starts, Math.ceil(min / BLOCK), exact);
  }

  /** Records the length of the name of `id`, the next id (ids come in order). */
  push(id: number, length: number): void {
    if (id % BLOCK === 0) this.starts[id / BLOCK] = this.used;
    if (length < LONG) this.lengths[id] = length;
    else {
      this.lengths[id] = LONG;
      this.long.set(id, length);
    }
    this.used += length;
  }

  length(id: number): number {
    const n = this.lengths[id];
    return n === LONG ? this.long.get(id)! : n;
  }

  start(id: number): number {
    const first = id - (id % BLOCK);
    const lengths = this.lengths;
    let at = this.starts[first / BLOCK];
    for (let i = first; i < id; i++) {
      const n = lengths[i];
      at += n === LONG ? this.long.get(i)! : n;
    }
    return at;
  }
}
