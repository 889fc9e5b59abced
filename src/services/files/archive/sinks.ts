/**
 * Where the feeder's entries go, in order: the zip writer (small entries deflated ahead of their
 * turn, by the workers that read them or in batches in the deflate workers) or the tar writer
 * (bytes as they are).
 */
import type { Readable, Writable } from 'node:stream';
import { createDeflateBatcher } from './deflate-workers.ts';
import { createParallelGzip } from './parallel-gzip.ts';
import { TarWriter } from './tar-writer.ts';
import { packEntry, type PackedEntry, ZIP_LEVEL, ZipWriter } from './zip-writer.ts';

/** What an archive records of an entry. `name` ends with '/' for a folder. */
export interface EntryData {
  name: string;
  date: Date;
  mode: number;
  folder?: boolean;
  /** Already compressed (zip stores it rather than deflating it again). */
  store?: boolean;
}

/** Receives entries one at a time, in archive order; `prepare` may run ahead of that order. */
export interface ArchiveSink<P = unknown> {
  /** Work on a small entry's bytes that can start before its turn; its result goes to `addBytes`. */
  prepare(source: Buffer, entry: EntryData): Promise<P>;
  /**
   * A zip's small files are deflated by the worker that reads them (disk/small-files.ts), at
   * this level; `take` turns such an entry into what `prepare` would have made of it.
   */
  readerDeflate?: { level: number; take(packed: PackedEntry): P };
  addBytes(entry: EntryData, prepared: P): Promise<void>;
  /** A large file, streamed in its turn: exactly `size` bytes unless the file shrank. */
  addStream(entry: EntryData, source: Readable, size: number): Promise<void>;
  finish(): Promise<void>;
}

/** A zip sink writing into `out`; small entries are deflated in batches in worker threads. */
export function zipSink(out: Writable): ArchiveSink<PackedEntry> {
  // Large entries are deflated in 1 MiB pieces in the deflate workers, several at once.
  const writer = new ZipWriter(out, () => createParallelGzip({ level: ZIP_LEVEL, raw: true }));
  const batcher = createDeflateBatcher();
  return {
    prepare: (source, entry) => (entry.store || source.length === 0 ? packEntry(source, true) : batcher.pack(source)),
    readerDeflate: { level: ZIP_LEVEL, take: (packed) => packed },
    addBytes: (entry, packed) => writer.addPacked(entry, packed),
    addStream: (entry, source, size) => writer.addStream(entry, source, size, entry.store === true),
    finish: () => writer.finish(),
  };
}

/** A tar sink writing into `out`. */
export function tarSink(out: Writable): ArchiveSink<Buffer> {
  const writer = new TarWriter(out);
  return {
    prepare: (source) => Promise.resolve(source),
    addBytes: (entry, source) => writer.addBytes(entry, source),
    addStream: (entry, source, size) => writer.addStream(entry, source, size),
    finish: () => writer.finish(),
  };
}
