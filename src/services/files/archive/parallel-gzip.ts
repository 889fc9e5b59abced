/**
 * gzip in parallel blocks, as pigz does: the input is cut into blocks, each compressed as its
 * own gzip member in the deflate worker threads (deflate-workers.ts), several at once, and the
 * members are written in order.
 * Concatenated members are one valid gzip stream (RFC 1952 §2.2): gzip, tar and browsers'
 * download managers read them as one file. Each block starts with an empty dictionary, which
 * costs well under 1 % of the size at 1 MiB blocks.
 */
import { Transform } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { gzipInWorker, workerCount } from './deflate-workers.ts';

const gzip = promisify(zlib.gzip);
const deflateRaw = promisify(zlib.deflateRaw);
/** The last block of a raw deflate stream whose pieces end with sync flushes: an empty final block. */
const FINAL_BLOCK = zlib.deflateRawSync(Buffer.alloc(0));

export interface ParallelGzipOptions {
  level?: number;
  /** Bytes of input per gzip member (default 1 MiB). */
  blockSize?: number;
  /** Members being compressed or waiting for a worker at once (default twice the workers, so that none waits on the main thread). */
  parallel?: number;
  /**
   * One raw deflate stream instead (a zip entry's data): each block a piece ending with a sync
   * flush, then an empty final block. Each piece starts with an empty dictionary, as members do.
   */
  raw?: boolean;
}

/** A Transform from bytes to a multi-member gzip stream (or, with `raw`, one raw deflate stream). */
export function createParallelGzip(opts: ParallelGzipOptions = {}): Transform {
  const level = opts.level ?? 6;
  const blockSize = opts.blockSize ?? 1 << 20;
  const parallel = opts.parallel ?? 2 * workerCount();
  const parts: Buffer[] = [];
  let length = 0;
  let started = 0;
  const inflight: Array<Promise<Buffer>> = [];

  /** The first `n` bytes waiting, copied into a block of its own (transferable to a worker). */
  const take = (n: number): Uint8Array => {
    const block = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const part = parts[0];
      const want = Math.min(part.length, n - at);
      block.set(want === part.length ? part : part.subarray(0, want), at);
      at += want;
      if (want === part.length) parts.shift();
      else parts[0] = part.subarray(want);
    }
    length -= n;
    return block;
  };
  const startBlock = (block: Uint8Array) => {
    // In the worker threads; on the thread pool only without them. One output buffer for the
    // whole member: with zlib's default 16 KiB, each block makes dozens of pool round trips.
    const chunkSize = block.length + (block.length >> 8) + 1024;
    const member = opts.raw
      ? (gzipInWorker(block, level, true) ?? deflateRaw(block, { level, chunkSize, finishFlush: zlib.constants.Z_SYNC_FLUSH }))
      : (gzipInWorker(block, level) ?? gzip(block, { level, chunkSize }));
    member.catch(() => {}); // awaited in order below; a failure must not go unhandled meanwhile
    inflight.push(member);
    started++;
  };
  /** Writes finished members, in order, until at most `keep` are in flight. */
  const settle = async (stream: Transform, keep: number) => {
    while (inflight.length > keep) stream.push(await inflight.shift());
  };

  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      parts.push(chunk);
      length += chunk.length;
      while (length >= blockSize) startBlock(take(blockSize));
      settle(this, parallel - 1).then(() => done(), done);
    },
    flush(done) {
      // Empty input still makes one (empty) member: the output is always a gzip file.
      if (length > 0 || started === 0) startBlock(take(length));
      settle(this, 0).then(() => done(null, opts.raw ? FINAL_BLOCK : undefined), done);
    },
  });
}
