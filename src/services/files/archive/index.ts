/**
 * Archive streams for raw folder downloads: zip (zip-writer.ts), or tar (tar-writer.ts) piped through
 * a compressor (compressors.ts). Entries are fed in order (feeder.ts: small files read and, for
 * zip, deflated a bounded window ahead; one large file open at a time; output backpressure
 * respected), so memory stays flat whatever the size of the tree. Entry names are
 * relative, '/'-separated, free of backslashes, and never absolute or climbing; names that are
 * not UTF-8 keep their exact bytes. Entries the gate hides are left out and links are
 * never followed out of the scope. Nothing else is dropped silently: an entry that cannot be
 * archived (vanished, unreadable, a link to a folder) is named in a last text entry, LEFT_OUT_NAME.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { ArchiveAlgo } from '../../../api/files.ts';
import type { Access, Gate, Target } from '../gate.ts';
import { coalescer } from './coalescer.ts';
import { createCompressor } from './compressors.ts';
import { Feeder } from './feeder.ts';
import { tarSink, zipSink } from './sinks.ts';

export { entryName, LEFT_OUT_NAME } from './feeder.ts';

/**
 * Builds the archive stream of `targets`, entries named relative to `base`. Throws before
 * anything is sent when the format needs a program or package this machine lacks (501). Errors after streaming
 * started cut the stream (the client sees a truncated download) and are reported to `onError`;
 * entries left out are listed in the archive and reported to `onLeftOut` (one line each).
 */
export async function createArchiveStream(
  gate: Gate,
  access: Access,
  targets: Target[],
  base: string,
  algo: ArchiveAlgo,
  onError: (err: Error) => void,
  onLeftOut: (lines: string[]) => void = () => {},
): Promise<Readable> {
  const compressor = algo === 'zip' || algo === 'tar' ? undefined : createCompressor(algo);
  // The response gets a PassThrough: when the client leaves, the feeder stops and the
  // compressor is killed, and whatever was writing into the abandoned stages is garbage.
  const out = new PassThrough({ highWaterMark: 1 << 20 });
  // Small writes are joined before a program's pipe or the socket; parallel gzip cuts its own blocks.
  const joined = algo === 'targz' ? new PassThrough({ highWaterMark: 1 << 20 }) : coalescer();
  const fail = (err: Error) => {
    if (out.destroyed) return;
    onError(err);
    out.destroy(err);
  };
  const feeder = new Feeder(gate, access, algo === 'zip' ? zipSink(joined) : tarSink(joined), base, onLeftOut);
  if (compressor) {
    compressor.on('error', fail);
    joined.pipe(compressor).pipe(out);
  } else {
    joined.pipe(out);
  }
  out.on('close', () => {
    feeder.stop();
    compressor?.destroy();
  });
  feeder.run(targets).catch((err: Error) => {
    if (feeder.stopped) return; // the client left
    fail(err);
  });
  return out;
}
