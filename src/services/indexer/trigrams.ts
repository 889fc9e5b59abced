/**
 * A trigram index over lower-cased names: for each trigram, the ascending ids of the names that
 * contain it. A substring query takes the rarest trigram of its term and verifies only those
 * candidates, instead of scanning every name. Trigram keys fold characters to 10 bits each;
 * collisions only add candidates, which verification removes. Posting lists are stored as
 * varint-encoded deltas in chunks (about one byte per posting), so a million names with fifteen
 * trigrams each cost ~15 MB rather than 60.
 */

const FIRST = 8;
const CHUNK = 16 * 1024;

class Postings {
  chunks: Uint8Array[] = [new Uint8Array(FIRST)];
  /** Bytes used in the last chunk. */
  used = 0;
  len = 0;
  last = 0;

  push(id: number): void {
    if (this.len > 0 && id === this.last) return;
    let delta = this.len === 0 ? id : id - this.last;
    this.last = id;
    this.len++;
    // Varint: 7 bits per byte, high bit set on all but the last byte.
    for (;;) {
      const byte = delta > 0x7f ? (delta & 0x7f) | 0x80 : delta;
      this.put(byte);
      if (delta <= 0x7f) break;
      delta = Math.floor(delta / 128);
    }
  }

  private put(byte: number): void {
    let chunk = this.chunks[this.chunks.length - 1];
    if (this.used === chunk.length) {
      if (chunk.length < CHUNK) {
        const bigger = new Uint8Array(Math.min(CHUNK, chunk.length * 2));
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

  trim(): void {
    const i = this.chunks.length - 1;
    if (this.chunks[i].length > this.used) this.chunks[i] = this.chunks[i].slice(0, this.used);
  }

  /** Decodes the ids in ascending order. */
  *ids(): Generator<number> {
    let id = 0;
    let shift = 1;
    let acc = 0;
    let first = true;
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
        id = first ? acc : id + acc;
        first = false;
        acc = 0;
        shift = 1;
        yield id;
      }
    }
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

  /** Releases growth slack after a bulk build. */
  trim(): void {
    for (const p of this.map.values()) p.trim();
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
