/**
 * Background fdatasyncs of part files, across PATCHes: once an upload has `every` bytes past its
 * last sync, one is due and the next chunks arrive while the disk writes, as the page cache lets
 * a plain write do. Only the last chunk waits for a sync (append.ts). A sync that completes
 * is recorded by the upload's next chunk (under its lock), never from here, so a record is
 * never written for an upload that was removed meanwhile. See durability.ts.
 *
 * Few run at once in the whole process (`atOnce`), the others wait in line: an fdatasync holds
 * one of libuv's four threads for as long as the disk takes, and the same threads do every
 * write, open and stat. Uploads that start together reach their 64 MiB together, and five
 * syncs at once held all four threads, so every upload's writes (and every other request's file
 * work) waited for the disk. An upload is in line at most once; its sync covers the chunks
 * acknowledged before it starts, so one that waited longer covers more.
 * docs/decisions.md, "Performance: tus uploads, several at once".
 */

/** Background syncs running at once in this process; the rest of libuv's four threads stay free. */
export const SYNCS_AT_ONCE = 1;

interface Flush {
  id: string;
  /** The upload it belongs to (a re-created upload under the same id starts afresh). */
  createdAt: number;
  /** The end of the last chunk acknowledged: what a sync starting now covers. */
  acknowledged: number;
  /** The offset the running (or last) sync covers. */
  target: number;
  running?: Promise<void>;
  /** Waiting in line for its turn. */
  queued: boolean;
  /** The highest offset a completed sync covered. */
  reached: number;
  error?: Error;
  sync: () => Promise<void>;
}

/** The running, waiting and completed background fdatasyncs of this instance's unfinished uploads, by upload id. */
export class Flushes {
  private readonly byId = new Map<string, Flush>();
  /** Uploads waiting for a sync, first come first served. */
  private readonly line = new Set<Flush>();
  private runningCount = 0;

  constructor(private readonly atOnce = SYNCS_AT_ONCE) {}

  /**
   * After a chunk that ended at `end` (the caller holds the upload's lock): the offset a
   * completed background sync reached (to record; at least `durable`, the recorded one), and a
   * sync put in line when `every` bytes have been written since the last one started. A failed
   * sync fails this chunk (what it covered may not be on disk; the record keeps the offset before it).
   */
  afterChunk(id: string, createdAt: number, end: number, durable: number, every: number, sync: () => Promise<void>): number {
    let f = this.byId.get(id);
    if (f?.createdAt !== createdAt) {
      if (f) this.line.delete(f);
      f = { id, createdAt, acknowledged: end, target: durable, reached: durable, queued: false, sync };
      this.byId.set(id, f);
    }
    if (f.error) {
      const { error } = f;
      this.byId.delete(id);
      throw error;
    }
    f.acknowledged = end;
    f.sync = sync;
    if (!f.running && !f.queued && end - Math.max(durable, f.target) >= every) {
      f.queued = true;
      this.line.add(f);
      this.next();
    }
    return Math.max(durable, f.reached);
  }

  /** Syncs running now in this process (for tests and the bench). */
  get running(): number {
    return this.runningCount;
  }

  /** Starts the syncs in line while fewer than `atOnce` run. */
  private next(): void {
    for (const f of this.line) {
      if (this.runningCount >= this.atOnce) return;
      this.line.delete(f);
      f.queued = false;
      if (this.byId.get(f.id) !== f) continue;
      this.start(f);
    }
  }

  private start(f: Flush): void {
    const target = f.acknowledged;
    f.target = target;
    this.runningCount++;
    f.running = f.sync().then(
      () => {
        f.reached = Math.max(f.reached, target);
      },
      (err: Error) => {
        f.error = err;
      },
    );
    void f.running.finally(() => {
      f.running = undefined;
      this.runningCount--;
      this.next();
    });
  }

  /**
   * After the last chunk's own fdatasync, which covered every byte: takes the upload out of line
   * (its last chunk never waits behind other uploads' syncs), waits for its running sync and
   * throws what that failed with (Linux reports a writeback error to one sync only).
   */
  async settle(id: string): Promise<void> {
    const f = this.byId.get(id);
    if (!f) return;
    this.line.delete(f);
    f.queued = false;
    await f.running;
    this.byId.delete(id);
    if (f.error) throw f.error;
  }

  /** Drops what is known of an upload that ended (finished, terminated, expired). */
  forget(id: string): void {
    const f = this.byId.get(id);
    if (f) this.line.delete(f);
    this.byId.delete(id);
  }
}
