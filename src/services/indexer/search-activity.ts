/**
 * Background work of the index gives way to searches: the snapshot written after a build (some
 * 160 chunks for a million entries, ~0.4 s on a 2-core machine) doubled the latency of the
 * searches made meanwhile. It now waits between its chunks while a search runs or ran within the
 * last `quietMs`, for `maxWaitMs` in all: the snapshot holds the index's queue of changes, so a
 * steady stream of searches (or one that somehow never ends) delays them by that much at most.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SearchActivityOptions {
  /** How long after the last search background work stays paused, ms (default 100). */
  quietMs?: number;
  /** The longest one piece of work waits in all (`pacer`), ms (default 2000). */
  maxWaitMs?: number;
  /** The clock, ms (tests inject a fake one). */
  now?: () => number;
}

export class SearchActivity {
  private running = 0;
  private lastEnd = Number.NEGATIVE_INFINITY;
  private readonly quietMs: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(opts: SearchActivityOptions = {}) {
    this.quietMs = opts.quietMs ?? 100;
    this.maxWaitMs = opts.maxWaitMs ?? 2000;
    this.now = opts.now ?? (() => performance.now());
  }

  /** A search starts; call the returned function when it ends (once; later calls do nothing). */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      this.lastEnd = this.now();
    };
  }

  /** Whether a search runs or ended less than `quietMs` ago. */
  get busy(): boolean {
    return this.running > 0 || this.now() - this.lastEnd < this.quietMs;
  }

  /**
   * The waits of one piece of background work: each call resolves once no search has run for
   * `quietMs`; together they wait `maxWaitMs` at most, after which calls resolve at once.
   */
  pacer(): () => Promise<void> {
    let left = this.maxWaitMs;
    return async () => {
      if (left <= 0 || !this.busy) return;
      const start = this.now();
      await this.quiet(left);
      left -= this.now() - start;
    };
  }

  /** Resolves once no search has run for `quietMs`, or after `maxMs`. */
  private async quiet(maxMs: number): Promise<void> {
    const start = this.now();
    while (this.busy) {
      const waited = this.now() - start;
      if (waited >= maxMs) return;
      const untilQuiet = this.running > 0 ? this.quietMs : this.lastEnd + this.quietMs - this.now();
      await sleep(Math.max(1, Math.min(untilQuiet, maxMs - waited)));
    }
  }
}
