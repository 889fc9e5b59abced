/**
 * Background fdatasyncs of part files, across PATCHes: once an upload has `every` bytes past its
 * last sync, one is due and the next chunks arrive while the disk writes, as the page cache lets
 * a plain write do. Only the last chunk waits for a sync (append.ts). A sync that completes
 * is recorded by the upload's next chunk (under its lock), never from here, so a record is
 * never written for an upload that was removed meanwhile. See durability.ts.
 *
 * Syncs take their turn in the process's slots (sync-slots.ts): an upload is in line at most
 * once, and its sync covers the chunks acknowledged before it starts, so one that waited covers more.
 */
import { type SlotTicket, SyncSlots } from './sync-slots.ts';

interface Flush {
  /** The upload it belongs to (a re-created upload under the same id starts afresh). */
  createdAt: number;
  /** The end of the last chunk acknowledged: what a sync starting now covers. */
  acknowledged: number;
  /** The offset the last sync to start covers. */
  target: number;
  /** The sync in line or running. */
  pending?: SlotTicket;
  /** The highest offset a completed sync covered. */
  reached: number;
  error?: Error;
  sync: () => Promise<void>;
}

/** The running, waiting and completed background fdatasyncs of this instance's unfinished uploads, by upload id. */
export class Flushes {
  private readonly byId = new Map<string, Flush>();

  constructor(readonly slots = new SyncSlots()) {}

  /**
   * After a chunk that ended at `end` (the caller holds the upload's lock): the offset a
   * completed background sync reached (to record; at least `durable`, the recorded one), and a
   * sync put in line when `every` bytes have been written since the last one started. A failed
   * sync fails this chunk (what it covered may not be on disk; the record keeps the offset before it).
   */
  afterChunk(id: string, createdAt: number, end: number, durable: number, every: number, sync: () => Promise<void>): number {
    let f = this.byId.get(id);
    if (f?.createdAt !== createdAt) {
      f?.pending?.skip();
      f = { createdAt, acknowledged: end, target: durable, reached: durable, sync };
      this.byId.set(id, f);
    }
    if (f.error) {
      const { error } = f;
      this.byId.delete(id);
      throw error;
    }
    f.acknowledged = end;
    f.sync = sync;
    if (!f.pending && end - Math.max(durable, f.target) >= every) this.queue(f);
    return Math.max(durable, f.reached);
  }

  private queue(f: Flush): void {
    let target = f.target;
    const ticket = this.slots.run(() => {
      target = f.acknowledged;
      f.target = target;
      return f.sync();
    });
    f.pending = ticket;
    ticket.done.then(
      () => {
        f.reached = Math.max(f.reached, target);
        f.pending = undefined;
      },
      (err: Error) => {
        f.error = err;
        f.pending = undefined;
      },
    );
  }

  /**
   * After the last chunk's own fdatasync, which covered every byte: takes the upload out of line
   * (its last chunk never waits behind other uploads' syncs), waits for its running sync and
   * throws what that failed with (Linux reports a writeback error to one sync only).
   */
  async settle(id: string): Promise<void> {
    const f = this.byId.get(id);
    if (!f) return;
    f.pending?.skip();
    await f.pending?.done.catch(() => {});
    this.byId.delete(id);
    if (f.error) throw f.error;
  }

  /** Drops what is known of an upload that ended (finished, terminated, expired). */
  forget(id: string): void {
    this.byId.get(id)?.pending?.skip();
    this.byId.delete(id);
  }
}
