/** Joins small writes into large chunks before compression and the socket. */
import { Transform } from 'node:stream';

/**
 * Joins the archive writers' many small writes (a header, a data descriptor, a small file) into
 * chunks of about `size` bytes, so the compressor and the socket see a few large writes
 * instead of tens of thousands of tiny ones.
 */
export function coalescer(size = 64 * 1024): Transform {
  let parts: Buffer[] = [];
  let length = 0;
  return new Transform({
    writableHighWaterMark: size,
    readableHighWaterMark: size,
    transform(chunk: Buffer, _enc, done) {
      if (length === 0 && chunk.length >= size) return done(null, chunk);
      parts.push(chunk);
      length += chunk.length;
      if (length >= size) {
        const joined = Buffer.concat(parts, length);
        parts = [];
        length = 0;
        return done(null, joined);
      }
      done();
    },
    flush(done) {
      done(null, length ? Buffer.concat(parts, length) : undefined);
    },
  });
}
