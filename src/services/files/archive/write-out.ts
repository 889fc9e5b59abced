import type { Writable } from 'node:stream';

/** Writes a buffer to an archive's output, waiting while the output is full; fails if the output closes meanwhile. */
export async function writeWithBackpressure(out: Writable, buf: Buffer): Promise<void> {
  if (out.write(buf)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', done).off('close', closed);
      if (err) reject(err);
      else resolve();
    };
    const closed = () => done(new Error('archive output closed'));
    out.once('drain', done).once('close', closed);
  });
}
