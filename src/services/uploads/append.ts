/**
 * Writing one PATCH body into a part file: at most the bytes the declared length leaves, at the
 * given offset, flushed to disk before the caller acknowledges the chunk.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FmError, PayloadTooLargeError } from '../../errors.ts';

/** Start flushing written data to disk every this many bytes, while the chunk still arrives. */
const FLUSH_EVERY = 4 * 1024 * 1024;

/** The request body ended before all its bytes arrived (the client went away). */
export class ClientGoneError extends FmError {
  constructor() {
    super(400, 'aborted', 'the client closed the connection');
  }
}

/**
 * Streams `body` into `part` at `offset` and fsyncs; returns the bytes written. More than
 * `remaining` bytes is a 413 and rolls the whole chunk back. Bytes that arrived before an
 * interruption are kept (and made durable): the client resumes after them.
 */
export async function appendChunk(part: string, offset: number, remaining: number, body: Readable): Promise<number> {
  const fh = await fsp.open(part, fs.constants.O_WRONLY | fs.constants.O_NOFOLLOW);
  let written = 0;
  let tooLong = false;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (written + chunk.length > remaining) {
        tooLong = true;
        cb(new PayloadTooLargeError(`the chunk goes past the declared Upload-Length (${remaining} bytes were left)`));
        return;
      }
      written += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    await pipeline(body, limit, positionalWriter(fh, offset));
    // The acknowledgement promises durability: a failing fsync fails the chunk.
    await fh.sync();
  } catch (err) {
    if (tooLong) await fh.truncate(offset);
    await fh.sync().catch(() => {});
    if (err instanceof FmError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (body.destroyed || code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'ECONNRESET') throw new ClientGoneError();
    throw err;
  } finally {
    await fh.close();
  }
  return written;
}

/**
 * A Writable over an open file that writes at increasing positions and never closes it (the
 * caller fsyncs and closes): fs write streams made from a FileHandle with autoClose off keep the
 * handle referenced, so its `close()` would wait forever. Every FLUSH_EVERY bytes it starts an
 * fdatasync in the background, so the disk works while the network does and the caller's final
 * fsync has little left to do. A failed background flush fails the stream (Linux reports a
 * writeback error to each open file once, so the final fsync might not see it again).
 */
function positionalWriter(fh: fsp.FileHandle, start: number): Writable {
  let position = start;
  let unflushed = 0;
  let flushing: Promise<void> | undefined;
  let flushError: Error | undefined;
  const writeAll = async (buffers: Buffer[]) => {
    if (flushError) throw flushError;
    let total = buffers.reduce((n, b) => n + b.length, 0);
    while (total > 0) {
      const { bytesWritten } = await fh.writev(buffers, position);
      position += bytesWritten;
      total -= bytesWritten;
      unflushed += bytesWritten;
      if (total > 0) buffers = dropBytes(buffers, bytesWritten);
    }
    if (unflushed >= FLUSH_EVERY && !flushing) flush();
  };
  // Flushes back to back while data keeps arriving, so the disk never waits for the network.
  const flush = () => {
    unflushed = 0;
    flushing = fh
      .datasync()
      .catch((err: Error) => {
        flushError ??= err;
      })
      .finally(() => {
        flushing = undefined;
        if (unflushed >= FLUSH_EVERY && !flushError) flush();
      });
  };
  return new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _enc, cb) {
      writeAll([chunk]).then(() => cb(), cb);
    },
    writev(chunks, cb) {
      writeAll(chunks.map((c) => c.chunk as Buffer)).then(() => cb(), cb);
    },
    final(cb) {
      (flushing ?? Promise.resolve()).then(() => cb(flushError), cb);
    },
  });
}

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
