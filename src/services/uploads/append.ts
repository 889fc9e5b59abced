/**
 * Writing one PATCH body into a part file: at most the bytes the declared length leaves, at the
 * given offset, fdatasynced before the caller acknowledges the chunk when the sync policy asks
 * (durability.ts). A small hand-rolled pump instead of stream.pipeline: one writev per batch of
 * received buffers, backpressure by pausing the request, and no write still in flight when it
 * settles (so a rollback cannot race).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { FmError, PayloadTooLargeError } from '../../errors.ts';
import { type SlotTicket, SyncSlots } from './sync-slots.ts';
import { receivedBytes } from '../young-gc.ts';

/**
 * Start an fdatasync every this many bytes while the chunk still arrives. Only very large PATCH
 * bodies reach it: at the default 10 MiB chunks one fsync per chunk was faster (and used half
 * the CPU) than a background flush every 4 MiB (docs/decisions.md, "Performance: transfers and
 * archives"); for a whole file in one PATCH it bounds what the last fsync has left to write.
 * It takes its turn in the process's sync slots, like the syncs between chunks.
 */
const FLUSH_EVERY = 64 * 1024 * 1024;
/**
 * Write only once this much has arrived (or the body ended): the body comes in 64 KiB pieces,
 * and a writev each time the previous write returned meant a write per piece or two, each with
 * its round trip through the thread pool and its inode update in the kernel.
 */
const WRITE_AT_LEAST = 1024 * 1024;
/**
 * ...or once the first byte of a smaller batch has waited this long: a slow client's bytes still
 * reach the part file (and HEAD's offset) soon.
 */
const WRITE_WITHIN_MS = 50;
/** Stop reading the request while this much is waiting to be written. */
const MAX_QUEUED = 4 * 1024 * 1024;

/** The request body ended before all its bytes arrived (the client went away). */
export class ClientGoneError extends FmError {
  constructor() {
    super(400, 'aborted', 'the client closed the connection');
  }
}

/** More bytes than the declared length leaves. */
class TooLongError extends PayloadTooLargeError {}

/** What a chunk did: the bytes it wrote, and whether the part was fdatasynced after them. */
export interface Appended {
  written: number;
  synced: boolean;
}

/**
 * Streams `body` into `part` at `offset`; returns the bytes written. The part is fdatasynced
 * before this returns after every chunk (`syncEach`), or only after the chunk that completes
 * the upload (`remaining` bytes): the finished file is durable before it is moved into place.
 * More than `remaining` bytes is a 413 and rolls the whole chunk back. Bytes that arrived before
 * an interruption (including those still queued for a batch) are kept: the client resumes after
 * them (fdatasynced too with `syncEach`).
 */
export async function appendChunk(
  part: string,
  offset: number,
  remaining: number,
  body: Readable,
  syncEach = true,
  slots: SyncSlots = UNLIMITED,
): Promise<Appended> {
  const fh = await fsp.open(part, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
  try {
    const written = await pump(fh, offset, remaining, body, slots);
    if (!syncEach && written < remaining) return { written, synced: false };
    // A failing fdatasync fails the chunk: what it promised is not on disk.
    await fh.datasync();
    return { written, synced: true };
  } catch (err) {
    if (err instanceof TooLongError) await fh.truncate(offset);
    if (syncEach) await fh.datasync().catch(() => {});
    throw err;
  } finally {
    await fh.close();
  }
}

/** Slots for a caller that gives none: every sync at once. */
const UNLIMITED = new SyncSlots(Number.POSITIVE_INFINITY);

/**
 * Copies the body into the file at increasing positions. Every FLUSH_EVERY bytes an fdatasync
 * is put in line, so that the final fsync of a very large chunk has little left; one still in
 * line when the chunk ends is dropped (the chunk's own sync, or the upload's next background
 * one, covers it). A failed background flush fails the chunk (Linux reports a writeback error
 * to each open file once, so the final fsync might not see it again).
 */
function pump(fh: fsp.FileHandle, start: number, remaining: number, body: Readable, slots: SyncSlots): Promise<number> {
  return new Promise((resolve, reject) => {
    let position = start;
    let received = 0;
    /** Full batch buffers waiting to be written, then the one being filled. */
    let queue: Buffer[] = [];
    let filling: Buffer | undefined;
    let filled = 0;
    let queued = 0;
    let writing: Promise<void> | undefined;
    let ended = false;
    /** The client went away: the bytes that arrived are still written, then the chunk fails. */
    let gone: ClientGoneError | undefined;
    let settled = false;
    let waitTimer: NodeJS.Timeout | undefined;
    let unflushed = 0;
    let flushing: Promise<void> | undefined;
    let inLine: SlotTicket | undefined;
    let flushError: Error | undefined;

    const detach = () => {
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    // Settles only once no write or flush is in flight, so the caller may truncate or close.
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(waitTimer);
      detach();
      inLine?.skip();
      void Promise.allSettled([writing, flushing]).then(() => {
        const failure = err ?? flushError;
        if (failure) reject(failure);
        else resolve(received);
      });
    };
    const flush = () => {
      unflushed = 0;
      inLine = slots.run(() => fh.datasync());
      flushing = inLine.done
        .catch((e: Error) => {
          flushError ??= e;
        })
        .finally(() => {
          flushing = undefined;
          inLine = undefined;
          if (unflushed >= FLUSH_EVERY && !flushError && !settled) flush();
        });
    };
    const writeBatch = async (batch: Buffer[]) => {
      let buffers = batch;
      let left = buffers.reduce((n, b) => n + b.length, 0);
      try {
        while (left > 0) {
          const { bytesWritten } = await fh.writev(buffers, position);
          position += bytesWritten;
          left -= bytesWritten;
          unflushed += bytesWritten;
          if (left > 0) buffers = dropBytes(buffers, bytesWritten);
        }
      } finally {
        for (const b of batch) batchBuffers.give(b);
      }
    };
    const kick = (now = false) => {
      if (writing || settled) return;
      if (queued === 0) {
        if (ended) settle(gone);
        return;
      }
      if (!ended && !now && queued < WRITE_AT_LEAST) {
        waitTimer ??= setTimeout(() => {
          waitTimer = undefined;
          kick(true);
        }, WRITE_WITHIN_MS);
        return;
      }
      clearTimeout(waitTimer);
      waitTimer = undefined;
      const batch = queue;
      if (filling && filled > 0) batch.push(filling.subarray(0, filled));
      queue = [];
      filling = undefined;
      filled = 0;
      queued = 0;
      writing = writeBatch(batch).then(
        () => {
          writing = undefined;
          if (flushError) return settle(flushError);
          if (settled) return;
          if (unflushed >= FLUSH_EVERY && !flushing) flush();
          if (!ended) body.resume();
          kick();
        },
        (err: Error) => {
          writing = undefined;
          settle(err);
        },
      );
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > remaining) {
        settle(new TooLongError(`the chunk goes past the declared Upload-Length (${remaining} bytes were left)`));
        return;
      }
      received += chunk.length;
      queued += chunk.length;
      receivedBytes(chunk.length);
      // Copied out at once, so the socket's buffer dies young (see BatchBuffers).
      for (let at = 0; at < chunk.length; ) {
        filling ??= batchBuffers.take();
        const n = chunk.copy(filling, filled, at);
        filled += n;
        at += n;
        if (filled === filling.length) {
          queue.push(filling);
          filling = undefined;
          filled = 0;
        }
      }
      if (queued >= MAX_QUEUED) body.pause();
      kick();
    };
    const onEnd = () => {
      ended = true;
      kick();
    };
    const onGone = () => {
      if (ended) return;
      ended = true;
      gone = new ClientGoneError();
      kick();
    };
    // An FmError is a termination (the upload's lock taken over): nothing more is written.
    const onError = (err: Error) => (err instanceof FmError ? settle(err) : onGone());
    const onClose = onGone;

    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    if (body.readableEnded) onEnd();
    // A body that went away while the chunk waited for its turn (the client aborted, or a
    // termination destroyed it) sends no more events: without this the chunk, and its upload's
    // lock, would wait for ever, and a DELETE taking the lock over with them.
    else if (body.destroyed) settle(body.errored instanceof FmError ? body.errored : new ClientGoneError());
  });
}

/**
 * Batch buffers of WRITE_AT_LEAST bytes, reused by every upload. The body's 64 KiB pieces used
 * to wait in the batch until written: held across young collections they were promoted, and the
 * GiB an upload moves then counted as old-space external memory, which set off a mark-compact
 * every 20-30 ms that kept itself going (fm's CPU per GiB 0.65 s or 1.6 s, bimodal; docs/
 * decisions.md, "Performance: tus uploads, CPU per GiB"). Each piece is now copied into one of
 * these and dropped in the same turn; the copy costs far less than the collections did.
 */
class BatchBuffers {
  readonly #free: ArrayBuffer[] = [];
  constructor(
    readonly size: number,
    readonly keep: number,
  ) {}
  take(): Buffer {
    const ab = this.#free.pop();
    return ab ? Buffer.from(ab) : Buffer.allocUnsafeSlow(this.size);
  }
  /** Back into the pool once written (any view of a pool buffer). */
  give(b: Buffer): void {
    if (b.buffer.byteLength === this.size && this.#free.length < this.keep && !this.#free.includes(b.buffer as ArrayBuffer)) {
      this.#free.push(b.buffer as ArrayBuffer);
    }
  }
}

/** Enough for a few uploads' queues and writes in flight; more are allocated and left to the GC. */
const batchBuffers = new BatchBuffers(WRITE_AT_LEAST, 32);

/** The buffers minus their first `n` bytes (after a short write). */
function dropBytes(buffers: Buffer[], n: number): Buffer[] {
  const out: Buffer[] = [];
  for (const b of buffers) {
    if (n >= b.length) {
      n -= b.length;
      continue;
    }
    out.push(n > 0 ? b.subarray(n) : b);
    n = 0;
  }
  return out;
}
