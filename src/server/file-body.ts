/**
 * The body of a file download: a byte range of an open file, read into a few buffers that are
 * reused for the whole download. fs.ReadStream allocates a fresh buffer per chunk; at 1 MiB
 * that is above glibc's mmap threshold on a fresh process, so every chunk was a new mapping
 * whose pages the kernel faulted in and zeroed (about 1 s of CPU per GiB against 0.3 s once
 * warm; bench/results/transfers.md).
 *
 * A buffer may be refilled only once the response has released it: `res.write`'s callback
 * fires when the socket has handed the bytes to the kernel (TLS: encrypted them). So the reuse
 * happens only when the body is piped into an http.ServerResponse (Koa pipes `ctx.body` into
 * `ctx.res` with stream.pipeline, which calls `pipe`); any other consumer reads it as a plain
 * Readable with a fresh buffer per chunk.
 */
import { ServerResponse } from 'node:http';
import { Readable, type Writable } from 'node:stream';
import type { FileHandle } from '../services/files/disk/types.ts';

/**
 * Size of each read, and how many reads may be in flight or waiting on the socket. Two 2 MiB
 * buffers took 0.25-0.27 s of CPU per GiB on a fresh server against 0.31-0.34 for four of
 * 512 KiB (fewer reads, writes and event-loop turns per GiB; bench/results/transfers.md); a file
 * smaller than a chunk gets a buffer of its own size.
 */
const CHUNK_BYTES = 2 * 1024 * 1024;
const BUFFERS = 2;
/** The plain Readable path's chunks (a fresh buffer each), as before. */
const PLAIN_CHUNK_BYTES = 512 * 1024;

/** A Readable over bytes `start`..`end` (inclusive) of `fh`; destroying it closes the file. */
export class FileBody extends Readable {
  private pos: number;
  private pumping = false;

  constructor(
    private readonly fh: FileHandle,
    start: number,
    private readonly end: number,
  ) {
    super({ highWaterMark: PLAIN_CHUNK_BYTES });
    this.pos = start;
  }

  /** The plain Readable path: one fresh buffer per chunk. */
  override _read(): void {
    const want = Math.min(PLAIN_CHUNK_BYTES, this.end + 1 - this.pos);
    if (want <= 0) {
      this.push(null);
      return;
    }
    this.fh.read(Buffer.allocUnsafe(want), 0, want, this.pos).then(
      ({ bytesRead, buffer }) => {
        if (this.destroyed) return;
        this.pos += bytesRead;
        // A file that shrank meanwhile ends early; the client sees fewer bytes than announced.
        if (bytesRead === 0) this.push(null);
        else this.push(buffer.subarray(0, bytesRead));
      },
      (err: Error) => this.destroy(err),
    );
  }

  override pipe<T extends NodeJS.WritableStream>(dest: T, options?: { end?: boolean }): T {
    if (!(dest instanceof ServerResponse) || this.pumping) return super.pipe(dest, options);
    this.pumping = true;
    this.pump(dest).then(
      () => {
        if (this.destroyed) return;
        if (options?.end !== false) dest.end();
        // Nothing was pushed: ending now emits 'end', which stream.pipeline waits for.
        this.push(null);
        this.resume();
      },
      (err: Error) => this.destroy(err),
    );
    return dest;
  }

  /**
   * Reads into a ring of buffers, refilling each only after the response wrote it out, so the
   * next reads overlap the writes still queued on the socket.
   */
  private async pump(res: Writable): Promise<void> {
    const closed = new Promise<void>((resolve) => this.once('close', resolve));
    const buffers: Buffer[] = [];
    const written: Array<Promise<void> | undefined> = [];
    for (let i = 0; this.pos <= this.end && !this.destroyed; i = (i + 1) % BUFFERS) {
      if (written[i]) await Promise.race([written[i], closed]);
      if (this.destroyed) return;
      const want = Math.min(CHUNK_BYTES, this.end + 1 - this.pos);
      buffers[i] ??= Buffer.allocUnsafeSlow(want);
      const { bytesRead } = await this.fh.read(buffers[i], 0, want, this.pos);
      if (bytesRead === 0 || this.destroyed) return;
      this.pos += bytesRead;
      const chunk = bytesRead === buffers[i].length ? buffers[i] : buffers[i].subarray(0, bytesRead);
      let released!: () => void;
      written[i] = new Promise<void>((resolve) => (released = resolve));
      // No wait for 'drain': the ring is the backpressure (at most BUFFERS chunks queued).
      res.write(chunk, () => released());
    }
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    // FileHandle.close waits for reads in flight.
    this.fh.close().then(
      () => done(err),
      () => done(err),
    );
  }
}
