/**
 * Background work of the index gives way to searches: the snapshot written after a build (some
 * 160 chunks for a million entries, ~0.4 s on a 2-core machine) doubled the latency of the
 * searches made meanwhile. It now waits between its chunks while a search runs or ran within the
 * last `quietMs`, at most `maxWaitMs` per chunk, so a steady stream of searches slows it down but
 * never stops it (and a search that somehow never ends costs each chunk `maxWaitMs`, no more).
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SearchActivityOptions {
  /** How long after the last search background work stays paused, ms (default 100). */
  quietMs?: number;
  /** The longest one wait lasts, ms (default 1000). */
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
    this.maxWaitMs = opts.maxWaitMs ?? 1000;
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

  /** Resolves once no search has run for `quietMs`, or after `maxWaitMs`. */
  async quiet(): Promise<void> {
    const start = this.now();
    while (this.busy) {
      const waited = this.now() - start;
      if (waited >= this.maxWaitMs) return;
      const untilQuiet = this.running > 0 ? this.quietMs : this.lastEnd + this.quietMs - this.now();
      await sleep(Math.max(1, Math.min(untilQuiet, this.maxWaitMs - waited)));
    }
  }
}
