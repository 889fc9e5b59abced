/**
 * A trigram index over lower-cased names: for each trigram, the ascending ids of the names that
 * contain it. A substring query takes the rarest trigram of its term and verifies only those
 * candidates, instead of scanning every name. Trigram keys fold characters to 10 bits each;
 * collisions only add candidates, which verification removes. Posting lists are stored as
 * varint-encoded gaps and runs of consecutive ids in chunks (at most about one byte per posting,
 * far less where neighbours share trigrams), so a million names with fifteen trigrams each cost
 * a few MB rather than 60.
 */

import { freeNow } from './free-now.ts';

const FIRST = 8;
const CHUNK = 16 * 1024;

/**
 * One trigram's ids, ascending, as records of varints: (gap from the previous record's last id)
 * × 2 + 1 when a run of consecutive ids follows, then the run's length − 1. Entries of one
 * folder get consecutive ids and often share trigrams (an extension, a prefix), so a run costs
 * a few bytes however long it is. The last record stays open (in fields) until a gap ends it.
 */
class Postings {
  chunks: Uint8Array[] = [new Uint8Array(FIRST)];
  /** Bytes used in the last chunk. */
  used = 0;
  len = 0;
  last = -1;
  /** The last id of the last written record. */
  private written = -1;
  /** The open record: its first id and how many consecutive ids follow it. */
  private start = -1;
  private extra = 0;

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
    let chunk = this.chunks[this.chunks.length - 1];
    if (this.used === chunk.length) {
      if (chunk.length < CHUNK) {
        const bigger = new Uint8Array(Math.min(CHUNK, Math.max(FIRST, chunk.length * 2)));
        bigger.set(chunk);
        this.chunks[this.chunks.length - 1] = chunk = bigger;
      } else {
        chunk = new Uint8Array(CHUNK);
        this.chunks.push(chunk);
        this.used = 0;
      }
    }
    chunk[this.used++] = byte;
  }

  /** Shortens the last chunk to its bytes; returns the outgrown one (to be freed), if any. */
  trim(): Uint8Array | undefined {
    const i = this.chunks.length - 1;
    const last = this.chunks[i];
    if (last.length === this.used) return undefined;
    this.chunks[i] = last.slice(0, this.used);
    return last;
  }

  /** Decodes the ids in ascending order. */
  *ids(): Generator<number> {
    let prev = -1;
    let shift = 1;
    let acc = 0;
    /** The record's first id while its run length is being read. */
    let runFrom = -1;
    const n = this.chunks.length;
    for (let c = 0; c < n; c++) {
      const chunk = this.chunks[c];
      const end = c === n - 1 ? this.used : chunk.length;
      for (let i = 0; i < end; i++) {
        const b = chunk[i];
        acc += (b & 0x7f) * shift;
        if (b & 0x80) {
          shift *= 128;
          continue;
        }
        const value = acc;
        acc = 0;
        shift = 1;
        if (runFrom >= 0) {
          for (let id = runFrom + 1; id <= runFrom + value; id++) yield id;
          prev = runFrom + value;
          runFrom = -1;
          continue;
        }
        const first = prev + Math.floor(value / 2);
        yield first;
        if (value % 2) runFrom = first;
        else prev = first;
      }
    }
    if (this.start >= 0) for (let id = this.start; id <= this.start + this.extra; id++) yield id;
  }

  bytes(): number {
    let n = 0;
    for (const c of this.chunks) n += c.byteLength;
    return n;
  }
}

export function trigramKey(s: string, i: number): number {
  return ((s.charCodeAt(i) & 0x3ff) << 20) | ((s.charCodeAt(i + 1) & 0x3ff) << 10) | (s.charCodeAt(i + 2) & 0x3ff);
}

export class TrigramIndex {
  private readonly map = new Map<number, Postings>();

  /** Indexes a lower-cased name under an id. Ids must be added in increasing order. */
  add(id: number, lower: string): void {
    for (let i = 0; i + 3 <= lower.length; i++) {
      const key = trigramKey(lower, i);
      let p = this.map.get(key);
      if (!p) {
        p = new Postings();
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
        p = new Postings();
        this.map.set(key, p);
      }
      p.push(id);
      a = b;
      b = c;
    }
  }

  /** Releases growth slack after a bulk build. */
  trim(): void {
    const outgrown: Uint8Array[] = [];
    for (const p of this.map.values()) {
      const old = p.trim();
      if (old) outgrown.push(old);
    }
    if (outgrown.length) freeNow(...outgrown);
  }

  /**
   * Candidate ids for a lower-cased term (ascending), or `undefined` when the term is shorter
   * than a trigram and every name must be checked.
   */
  candidates(lowerTerm: string): Iterable<number> | undefined {
    if (lowerTerm.length < 3) return undefined;
    let best: Postings | undefined;
    for (let i = 0; i + 3 <= lowerTerm.length; i++) {
      const p = this.map.get(trigramKey(lowerTerm, i));
      if (!p) return [];
      if (!best || p.len < best.len) best = p;
    }
    return best!.ids();
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
