/**
 * Each entry's parent id, kept per run of consecutive ids with the same parent rather than in a
 * 4-byte column: a scanned folder's entries get consecutive ids (so does a snapshot's load), so
 * a million entries in a thousand folders are a few thousand runs, not 4 MiB. An entry added
 * later starts a run of its own unless it follows an entry of its folder. Ids come in order
 * and an id's parent never changes (a move is a removal plus an addition).
 */
import { grownColumn } from './columns.ts';

export class Parents {
  /** The first id of each run, ascending. */
  private heads = new Int32Array(64);
  /** The parent of each run's ids. */
  private of = new Int32Array(64);
  private runs = 0;
  /** The run of the last lookup: hits and walks come in runs from one folder. */
  private cached = 0;

  /** Records the parent of `id`, the next id (ids come in order, none skipped). */
  push(id: number, parent: number): void {
    const n = this.runs;
    if (n > 0 && this.of[n - 1] === parent) return;
    if (n === this.heads.length) {
      this.heads = grownColumn(this.heads, n + 1);
      this.of = grownColumn(this.of, n + 1);
    }
    this.heads[n] = id;
    this.of[n] = parent;
    this.runs = n + 1;
  }

  /** The parent of an id pushed before. */
  get(id: number): number {
    const heads = this.heads;
    const c = this.cached;
    if (c < this.runs && heads[c] <= id && (c + 1 === this.runs || heads[c + 1] > id)) return this.of[c];
    // The last run whose head is at most id.
    let lo = 0;
    let hi = this.runs - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (heads[mid] <= id) lo = mid;
      else hi = mid - 1;
    }
    this.cached = lo;
    return this.of[lo];
  }

  /** How many runs there are (for tests and status). */
  get count(): number {
    return this.runs;
  }
}
