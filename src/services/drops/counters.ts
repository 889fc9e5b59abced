/**
 * A drop link's limits and counters, kept in its share record. Room is taken when an upload
 * starts (a reservation: one file and its declared bytes), so two uploads at once cannot both
 * pass a limit; it becomes a received file when the upload finishes, and is given back when
 * it fails. Every change is a read-modify-write of the record in one queue per link, in this
 * process (fm serves from one process; the CLI never changes the counters).
 *
 * tus reservations are stored in the record by upload id (they outlive a restart, as the
 * uploads do) and dropped once their staging record is gone (finished, terminated, expired);
 * reservations of plain POSTs live in memory, since their uploads end with the process.
 */
import { type DropLimits, pickLimits } from '../../api/shares.ts';
import { FmError, NotFoundError } from '../../errors.ts';
import type { Repos } from '../context.ts';
import { type DropState, nowSeconds, type ShareRecord } from '../../storage/repos/shares.ts';

/** Whether an unfinished tus upload still exists (its staging record). */
export type UploadExists = (id: string) => Promise<boolean>;

/** 413 with a code per limit, which the drop page translates. */
export class DropLimitError extends FmError {
  constructor(code: 'drop_files' | 'drop_bytes' | 'drop_file_size', message: string) {
    super(413, code, message);
  }
}

export class DropCounters {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** Room held by plain uploads in progress, by link and key. */
  private readonly inFlight = new Map<string, Map<symbol, number>>();
  /** tus reservations whose upload is still being created (no staging record yet: not pruned). */
  private readonly creating = new Set<string>();

  constructor(
    private readonly repos: Repos,
    private readonly uploadExists: UploadExists,
  ) {}

  /**
   * Holds room for one file of `bytes` (413 when it does not fit); `id` is a tus upload's id,
   * without one the room is held in memory under the returned key.
   */
  async reserve(hash: string, bytes: number, id?: string): Promise<symbol | undefined> {
    return this.locked(hash, async (share, drop) => {
      const left = await this.room(share, drop);
      if (left.maxFileSize !== undefined && bytes > left.maxFileSize) {
        throw new DropLimitError('drop_file_size', `this link accepts files of at most ${left.maxFileSize} bytes`);
      }
      if (left.maxFiles !== undefined && left.maxFiles < 1)
        throw new DropLimitError('drop_files', `this link accepts no more files (at most ${drop.maxFiles})`);
      if (left.maxBytes !== undefined && bytes > left.maxBytes) {
        throw new DropLimitError('drop_bytes', `this link accepts ${left.maxBytes} more bytes (at most ${drop.maxBytes} in all)`);
      }
      if (id !== undefined) {
        this.creating.add(id);
        drop.reserved[id] = bytes;
        await this.save(share);
        return undefined;
      }
      const key = Symbol(hash);
      this.heldInMemory(hash).set(key, bytes);
      return key;
    });
  }

  /** The upload of a tus reservation was created (or failed to be): its staging record now decides. */
  created(id: string): void {
    this.creating.delete(id);
  }

  /** A file of `bytes` arrived: its reservation (if any) becomes a received file. */
  async received(hash: string, bytes: number, id: string | symbol | undefined): Promise<void> {
    await this.locked(hash, async (share, drop) => {
      this.forget(hash, drop, id);
      drop.files += 1;
      drop.bytes += bytes;
      drop.last = nowSeconds();
      await this.save(share);
    }).catch((err) => {
      // The link was deleted meanwhile: the file is there, there is nothing left to count.
      if (!(err instanceof NotFoundError)) throw err;
    });
  }

  /** Gives a reservation back (a failed or terminated upload). */
  async release(hash: string, id: string | symbol | undefined): Promise<void> {
    if (typeof id === 'symbol' || id === undefined) {
      this.forget(hash, undefined, id);
      return;
    }
    await this.locked(hash, async (share, drop) => {
      this.forget(hash, drop, id);
      await this.save(share);
    }).catch((err) => {
      if (!(err instanceof NotFoundError)) throw err;
    });
  }

  /** The room each limit has left (absent: no limit), after reservations of uploads that are gone are dropped. */
  async left(hash: string): Promise<DropLimits> {
    return this.locked(hash, (share, drop) => this.room(share, drop));
  }

  private async room(share: ShareRecord, drop: DropState): Promise<DropLimits> {
    let pruned = false;
    for (const id of Object.keys(drop.reserved)) {
      if (this.creating.has(id) || (await this.uploadExists(id))) continue;
      delete drop.reserved[id];
      pruned = true;
    }
    if (pruned) await this.save(share);
    const held = [...Object.values(drop.reserved), ...(this.inFlight.get(share.hash)?.values() ?? [])];
    const limits = pickLimits(drop);
    const left: DropLimits = {};
    if (limits.maxFiles !== undefined) left.maxFiles = Math.max(0, limits.maxFiles - drop.files - held.length);
    if (limits.maxBytes !== undefined) left.maxBytes = Math.max(0, limits.maxBytes - drop.bytes - held.reduce((a, b) => a + b, 0));
    if (limits.maxFileSize !== undefined) left.maxFileSize = limits.maxFileSize;
    return left;
  }

  private forget(hash: string, drop: DropState | undefined, id: string | symbol | undefined): void {
    if (typeof id === 'symbol') {
      const held = this.inFlight.get(hash);
      held?.delete(id);
      if (held?.size === 0) this.inFlight.delete(hash);
    } else if (id !== undefined && drop) {
      delete drop.reserved[id];
    }
  }

  private heldInMemory(hash: string): Map<symbol, number> {
    let held = this.inFlight.get(hash);
    if (!held) {
      held = new Map();
      this.inFlight.set(hash, held);
    }
    return held;
  }

  /**
   * Runs `fn` in the link's queue: deleting a link through it (DropService.removeLink) cannot
   * fall between a read of the record and its write, which would bring the link back.
   */
  exclusive<T>(hash: string, fn: () => Promise<T>): Promise<T> {
    return this.queued(hash, fn);
  }

  /** Writes a changed record unless the link was removed meanwhile by a path outside the queue (file events). */
  private async save(share: ShareRecord): Promise<void> {
    if (await this.repos.shares.get(share.hash)) await this.repos.shares.update(share);
  }

  /** Runs `fn` on the link's current record, after every earlier change to the same link. */
  private locked<T>(hash: string, fn: (share: ShareRecord, drop: DropState) => Promise<T>): Promise<T> {
    return this.queued(hash, async () => {
      const share = await this.repos.shares.get(hash);
      if (!share?.drop) throw new NotFoundError('share not found');
      return fn(share, share.drop);
    });
  }

  private queued<T>(hash: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(hash) ?? Promise.resolve();
    const result = previous.then(run, run);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(hash, tail);
    void tail.then(() => {
      if (this.queues.get(hash) === tail) this.queues.delete(hash);
    });
    return result;
  }
}
