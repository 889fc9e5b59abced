/**
 * A trigram index over lower-cased names: for each trigram, the ascending ids of the names that
 * contain it. A substring query takes the rarest trigram of its term and verifies only those
 * candidates, instead of scanning every name. Trigram keys fold characters to 10 bits each;
 * collisions only add candidates, which verification removes. Posting lists are stored as
 * varint-encoded gaps and runs of consecutive ids (at most about one byte per posting, far less
 * where neighbours share trigrams), so a million names with fifteen trigrams each cost a few MB
 * rather than 60.
 *
 * Where the bytes live: during a bulk build, lists grow in chunks carved from a few large pools
 * (mapped memory, columns.ts), never copied; `trim` then packs every list into one buffer of
 * exactly their bytes and drops the pools. Growing each list in its own doubling array left the
 * outgrown copies as holes in malloc's heap, resident after the build (~6 MiB for a million
 * names). Ids added after packing go to small chunks of the list's own.
 */

import { columnLength } from './columns.ts';
import { freeNow } from './free-now.ts';

const FIRST = 8;
const CHUNK = 16 * 1024;
const POOL = 64 * 1024;

/** Hands out chunks for posting lists: from pools while building, on their own after packing. */
class ChunkSource {
  private pools: Uint8Array[] = [];
  private pool: Uint8Array | undefined;
  private used = 0;
  /** Whether chunks come from pools (a bulk build since the last `trim`). */
  pooled = true;

  chunk(size: number): Uint8Array {
    if (!this.pooled) return new Uint8Array(size);
    if (!this.pool || this.used + size > this.pool.length) {
      // A small first pool for a small tree; then mapped ones (columns.ts), of which only the
      // pages written to become resident.
      this.pool = new Uint8Array(this.pool ? columnLength(1, POOL + 1) : POOL);
      this.pools.push(this.pool);
      this.used = 0;
    }
    const chunk = this.pool.subarray(this.used, this.used + size);
    this.used += size;
    return chunk;
  }

  /** Frees the pools (every chunk carved from them must be dropped first) and stops pooling. */
  release(): void {
    if (this.pools.length) freeNow(...this.pools);
    this.pools = [];
    this.pool = undefined;
    this.pooled = false;
  }
}

/**
 * One trigram's ids, ascending, as records of varints: (gap from the previous record's last id)
 * × 2 + 1 when a run of consecutive ids follows, then the run's length − 1. Entries of one
 * folder get consecutive ids and often share trigrams (an extension, a prefix), so a run costs
 * a few bytes however long it is. The last record stays open (in fields) until a gap ends it.
 * Written records are `packed[from .. to)` (a buffer shared by every list), then `chunks`.
 */
class Postings {
  packed: Uint8Array | undefined;
  from = 0;
  to = 0;
  chunks: Uint8Array[] = [];
  /** Bytes used in the last chunk. */
  used = 0;
  len = 0;
  last = -1;
  /** The last id of the last written record. */
  private written = -1;
  /** The open record: its first id and how many consecutive ids follow it (read by PostingCursor). */
  start = -1;
  extra = 0;

  constructor(private readonly source: ChunkSource) {}

  push(id: number): void {
    if (id <= this.last) return;
    this.len++;
    if (this.start >= 0 && id === this.last + 1) {
      this.extra++;
      this.last = id;
      return;
    }
    if (this.start >= 0) this.close();
    this.start = this.last = id;
    this.extra = 0;
  }

  /** Writes the open record. */
  private close(): void {
    const gap = this.start - this.written;
    this.varint(gap * 2 + (this.extra ? 1 : 0));
    if (this.extra) this.varint(this.extra);
    this.written = this.start + this.extra;
    this.start = -1;
  }

  private varint(n: number): void {
    // 7 bits per byte, high bit set on all but the last byte.
    for (;;) {
      const byte = n > 0x7f ? (n & 0x7f) | 0x80 : n;
      this.put(byte);
      if (n <= 0x7f) break;
      n = Math.floor(n / 128);
    }
  }

  private put(byte: number): void {
    const n = this.chunks.length;
    let chunk = this.chunks[n - 1];
    if (!chunk || this.used === chunk.length) {
      // Chunks double up to CHUNK and are chained, never copied.
      chunk = this.source.chunk(chunk ? Math.min(CHUNK, chunk.length * 2) : FIRST);
      this.chunks.push(chunk);
      this.used = 0;
    }
    chunk[this.used++] = byte;
  }

  /** Bytes of written records. */
  writtenBytes(): number {
    let n = this.to - this.from;
    const last = this.chunks.length - 1;
    for (let c = 0; c < last; c++) n += this.chunks[c].length;
    return last >= 0 ? n + this.used : n;
  }

  /** Copies the written records into `target` at `at` and reads them from there on; returns the end. */
  packInto(target: Uint8Array, at: number): number {
    const start = at;
    if (this.packed) target.set(this.packed.subarray(this.from, this.to), at);
    at += this.to - this.from;
    const last = this.chunks.length - 1;
    for (let c = 0; c <= last; c++) {
      const chunk = this.chunks[c];
      target.set(c === last ? chunk.subarray(0, this.used) : chunk, at);
      at += c === last ? this.used : chunk.length;
    }
    this.packed = target;
    this.from = start;
    this.to = at;
    this.chunks = [];
    this.used = 0;
    return at;
  }

  /** Bytes held (the packed part counted as its own share). */
  bytes(): number {
    let n = this.to - this.from;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }
}

/**
 * Reads one list's ids in ascending order, a block at a time into the caller's array: a query
 * checks thousands of candidates, and a loop over a filled block is compiled on the first query
 * (on-stack replacement) where a generator resumed per id ran in the interpreter for the first
 * few. Ids appended to the list while a query pauses are read too (they are larger than any read).
 */
export class PostingCursor implements Iterable<number> {
  /** -1: the packed part; then each chunk. */
  private seg = -1;
  private pos: number;
  /** The last id of the last record read. */
  private prev = -1;
  private acc = 0;
  private shift = 1;
  /** A record's first id while its run length is read. */
  private runFrom = -1;
  /** Ids decoded but not yet handed out: next .. end. */
  private next = 0;
  private end = -1;
  private done = false;

  constructor(private readonly list: Postings | undefined) {
    this.pos = list?.from ?? 0;
    this.done = !list;
  }

  /** Fills `out` from the start with the next ids; returns how many (0: no more). */
  read(out: Int32Array): number {
    const cap = out.length;
    let k = 0;
    let next = this.next;
    const list = this.list;
    while (k < cap) {
      if (next <= this.end) {
        const end = this.end;
        while (next <= end && k < cap) out[k++] = next++;
        continue;
      }
      if (this.done || !list) break;
      // The next record (or the second half of one): varints, 7 bits a byte, high bit: more follow.
      const chunks = list.chunks;
      const seg = this.seg < 0 ? list.packed : chunks[this.seg];
      const stop = this.seg < 0 ? list.to : this.seg === chunks.length - 1 ? list.used : (seg?.length ?? 0);
      if (!seg || this.pos >= stop) {
        if (this.seg < chunks.length - 1) {
          this.seg++;
          this.pos = 0;
          continue;
        }
        // Past every written record: the open one, then nothing (a record written later would repeat it).
        this.done = true;
        if (list.start >= 0) {
          next = list.start;
          this.end = list.start + list.extra;
        }
        continue;
      }
      const b = seg[this.pos++];
      this.acc += (b & 0x7f) * this.shift;
      if (b & 0x80) {
        this.shift *= 128;
        continue;
      }
      const value = this.acc;
      this.acc = 0;
      this.shift = 1;
      if (this.runFrom >= 0) {
        next = this.runFrom + 1;
        this.end = this.prev = this.runFrom + value;
        this.runFrom = -1;
        continue;
      }
      const first = this.prev + Math.floor(value / 2);
      next = this.end = first;
      if (value % 2) this.runFrom = first;
      else this.prev = first;
    }
    this.next = next;
    return k;
  }

  *[Symbol.iterator](): Iterator<number> {
    const block = new Int32Array(256);
    for (let n = this.read(block); n > 0; n = this.read(block)) for (let i = 0; i < n; i++) yield block[i];
  }
}

export function trigramKey(s: string, i: number): number {
  return ((s.charCodeAt(i) & 0x3ff) << 20) | ((s.charCodeAt(i + 1) & 0x3ff) << 10) | (s.charCodeAt(i + 2) & 0x3ff);
}

export class TrigramIndex {
  private readonly map = new Map<number, Postings>();
  private readonly source = new ChunkSource();
  /** The buffer every list's written records were packed into by the last `trim`. */
  private packed: Uint8Array | undefined;

  /** Indexes a lower-cased name under an id. Ids must be added in increasing order. */
  add(id: number, lower: string): void {
    for (let i = 0; i + 3 <= lower.length; i++) {
      const key = trigramKey(lower, i);
      let p = this.map.get(key);
      if (!p) {
        p = new Postings(this.source);
        this.map.set(key, p);
      }
      p.push(id);
    }
  }

  /**
   * Indexes a name given as UTF-8 bytes (`bytes[start .. end)`), as `add` would its lower-cased
   * string: ASCII names are folded and keyed on the bytes, without making a string.
   */
  addUtf8(id: number, bytes: Uint8Array, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      if (bytes[i] >= 0x80) {
        this.add(
          id,
          Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start)
            .toString('utf8')
            .toLowerCase(),
        );
        return;
      }
    }
    const lower = (b: number) => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);
    if (end - start < 3) return;
    let a = lower(bytes[start]);
    let b = lower(bytes[start + 1]);
    for (let i = start + 2; i < end; i++) {
      const c = lower(bytes[i]);
      const key = (a << 20) | (b << 10) | c;
      let p = this.map.get(key);
      if (!p) {
        p = new Postings(this.source);
        this.map.set(key, p);
      }
      p.push(id);
      a = b;
      b = c;
    }
  }

  /**
   * After a bulk build (and whenever called again): packs every list's written records into one
   * buffer of their exact size and frees the pools and the previous buffer. Later additions
   * go to small chunks of each list's own. Only for an index no query is reading (a bulk build
   * or compaction before it is swapped in): the arrays a paused query reads are freed.
   */
  trim(): void {
    let total = 0;
    for (const p of this.map.values()) total += p.writtenBytes();
    const packed = new Uint8Array(columnLength(1, total));
    let at = 0;
    for (const p of this.map.values()) at = p.packInto(packed, at);
    this.source.release();
    if (this.packed) freeNow(this.packed);
    this.packed = packed;
  }

  /**
   * Candidate ids for a lower-cased term (ascending), from its rarest trigram, or `undefined`
   * when the term is shorter than a trigram and every name must be checked.
   */
  candidates(lowerTerm: string): PostingCursor | undefined {
    if (lowerTerm.length < 3) return undefined;
    let best: Postings | undefined;
    for (let i = 0; i + 3 <= lowerTerm.length; i++) {
      const p = this.map.get(trigramKey(lowerTerm, i));
      if (!p) return new PostingCursor(undefined);
      if (!best || p.len < best.len) best = p;
    }
    return new PostingCursor(best);
  }

  get size(): number {
    return this.map.size;
  }

  /** Bytes held by posting lists (for status and benchmarks). */
  bytes(): number {
    let n = 0;
    for (const p of this.map.values()) n += p.bytes();
    return n;
  }
}
