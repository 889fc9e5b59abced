/**
 * Background fdatasyncs of part files, across PATCHes: once an upload has `every` bytes past its
 * last sync, one starts and the next chunks arrive while the disk writes, as the page cache lets
 * a plain write do. Only the last chunk waits for a sync (append.ts). A sync that completes
 * is recorded by the upload's next chunk (under its lock), never from here, so a record is
 * never written for an upload that was removed meanwhile. See durability.ts.
 */

interface Flush {
  /** The upload it belongs to (a re-created upload under the same id starts afresh). */
  createdAt: number;
  /** The offset the running sync covers. */
  target: number;
  running?: Promise<void>;
  /** The highest offset a completed sync covered. */
  reached: number;
  error?: Error;
}

/** The running and completed background fdatasyncs of this instance's unfinished uploads, by upload id. */
export class Flushes {
  private readonly byId = new Map<string, Flush>();

  /**
   * After a chunk that ended at `end` (the caller holds the upload's lock): the offset a
   * completed background sync reached (to record; at least `durable`, the recorded one), and a
   * new sync started when `every` bytes have been written since the last. A failed sync fails
   * this chunk (what it covered may not be on disk; the record keeps the offset before it).
   */
  afterChunk(id: string, createdAt: number, end: number, durable: number, every: number, sync: () => Promise<void>): number {
    let f = this.byId.get(id);
    if (f?.createdAt !== createdAt) {
      f = { createdAt, target: durable, reached: durable };
      this.byId.set(id, f);
    }
    if (f.error) {
      const { error } = f;
      this.byId.delete(id);
      throw error;
    }
    if (!f.running && end - Math.max(durable, f.target) >= every) {
      const flush = f;
      flush.target = end;
      flush.running = sync().then(
        () => {
          flush.reached = Math.max(flush.reached, end);
          flush.running = undefined;
        },
        (err: Error) => {
          flush.error = err;
          flush.running = undefined;
        },
      );
    }
    return Math.max(durable, f.reached);
  }

  /** Waits for the upload's running sync (before its last chunk's own); throws what it failed with. */
  async settle(id: string): Promise<void> {
    const f = this.byId.get(id);
    if (!f) return;
    await f.running;
    this.byId.delete(id);
    if (f.error) throw f.error;
  }

  /** Drops what is known of an upload that ended (finished, terminated, expired). */
  forget(id: string): void {
    this.byId.delete(id);
  }
}
