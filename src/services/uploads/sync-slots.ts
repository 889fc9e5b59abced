/**
 * The process-wide limit on background fdatasyncs of part files. An fdatasync holds one of
 * libuv's four threads for as long as the disk takes, and the same threads do every write, open
 * and stat: uploads that start together reach their 64 MiB together, and five syncs at once
 * held all four threads, so every upload's writes (and every other request's file work) waited
 * for the disk. The syncs a client waits for (a last chunk's, HEAD's) do not take a slot.
 * docs/decisions.md, "Performance: tus uploads, several at once".
 */

/** Background syncs running at once in this process; the rest of libuv's four threads stay free. */
export const SYNCS_AT_ONCE = 1;

/** A sync given to `run`: settles once it ran, or at once when skipped before its turn. */
export interface SlotTicket {
  done: Promise<void>;
  /** Gives up the turn of a sync still in line (its caller's own sync covers it now); no-op once started. */
  skip(): void;
}

/** At most `size` syncs at once; the others wait in line, first come first served. */
export class SyncSlots {
  private inFlight = 0;
  private readonly line = new Set<() => void>();

  constructor(readonly size = SYNCS_AT_ONCE) {}

  /** Syncs running now. */
  get running(): number {
    return this.inFlight;
  }

  /** Runs `sync` in its turn; `done` rejects with what it failed with. */
  run(sync: () => Promise<void>): SlotTicket {
    let skip = () => {};
    const done = new Promise<void>((resolve, reject) => {
      const start = () => {
        this.line.delete(start);
        this.inFlight++;
        // A sync that throws before its promise fails like one that rejects.
        new Promise<void>((ok) => ok(sync())).then(resolve, reject).finally(() => {
          this.inFlight--;
          this.next();
        });
      };
      skip = () => {
        if (this.line.delete(start)) resolve();
      };
      this.line.add(start);
      this.next();
    });
    return { done, skip };
  }

  private next(): void {
    for (const start of this.line) {
      if (this.inFlight >= this.size) return;
      start();
    }
  }
}
