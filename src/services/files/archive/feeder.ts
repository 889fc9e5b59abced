/**
 * Feeds an archive writer its entries in order: folders, files (small ones read ahead in batches in
 * worker threads, large ones streamed in their turn) and links to files inside the scope.
 * Entries that cannot be archived are listed in a last text entry, LEFT_OUT_NAME.
 */
import type { Readable } from 'node:stream';
import type { Access, Gate, Target } from '../gate.ts';
import { openRealForRead } from '../io.ts';
import { readSmallFilesInWorker } from '../disk/listing-worker.ts';
import { displayName, osPath } from '../disk/names.ts';
import { SMALL_NOT_READ, SMALL_READ, type SmallReadResult } from '../disk/small-files.ts';
import { lstat } from '../disk/lookup.ts';
import type { FileHandle } from '../disk/types.ts';
import type { ArchiveSink, EntryData } from './sinks.ts';

/** Already-compressed formats are stored in zips rather than deflated again. */
const STORED = /\.(zip|gz|tgz|bz2|xz|zst|lz4|7z|rar|jpe?g|png|gif|webp|avif|heic|mp4|m4v|mkv|webm|mov|mp3|m4a|ogg|opus|flac|docx|xlsx|pptx|odt|epub)$/i;

/**
 * The archive name of a virtual path relative to `base`: '/'-separated, never absolute or
 * climbing, backslashes replaced (some extractors treat them as separators). A leading
 * `word:` would be cut by archiver as a drive letter, so its colon is replaced too.
 */
export function entryName(base: string, virtual: string): string {
  const rel = base === '/' ? virtual : virtual.slice(base.length);
  const segs = rel
    .split('/')
    .filter((s) => s !== '' && s !== '.' && s !== '..')
    .map((s) => s.replace(/\\/g, '_'));
  if (segs.length && /^\w+:/.test(segs[0])) segs[0] = segs[0].replace(':', '_');
  return segs.join('/');
}

/** Name of the last entry of an archive some entries could not go into (numbered if taken). */
export const LEFT_OUT_NAME = 'fm-left-out.txt';

/** Files up to this size are read whole, ahead of their turn; larger ones are streamed in their turn. */
const READ_AHEAD_MAX_SIZE = 256 * 1024;
/** How many entries are prepared ahead of the writer; refilled when half of them are used. */
const READ_AHEAD_ENTRIES = 128;
/** Small files read together in a worker thread: at most this many, and this many bytes. */
const BATCH_FILES = 64;
const BATCH_BYTES = 4 << 20;

/** What the walk yields: an entry to prepare, in archive order ('other': a FIFO, socket or device). */
type Item = { kind: 'folder' | 'file' | 'link' | 'other'; abs: string; name: string };

/** An entry ready to append: its bytes as the sink prepared them (small files, folders) or an open handle to stream. */
type Prepared = { data: EntryData; packed: Promise<unknown> } | { data: EntryData; fh: FileHandle; size: number };

const UNREADABLE = 'could not be read (it vanished, is unreadable or was replaced meanwhile)';

/**
 * Appends entries in order, each written before the next is appended. Small files are opened,
 * checked and read ahead of their turn, in batches in the worker threads (thousands of small
 * files otherwise cost the main thread mostly file-call overhead and waiting); memory stays
 * bounded by the read-ahead window.
 */
export class Feeder {
  stopped = false;
  finished = false;
  private current?: { stream?: Readable; reject: (err: Error) => void };
  private readonly ahead: Array<Promise<Prepared | undefined>> = [];
  /** "name: why" of each entry that could not be archived. */
  private readonly leftOut: string[] = [];
  /** First segments of the archived names (the left-out notice must not take one of them). */
  private readonly topNames = new Set<string>();

  constructor(
    private readonly gate: Gate,
    private readonly access: Access,
    private readonly sink: ArchiveSink,
    private readonly base: string,
    private readonly onLeftOut: (lines: string[]) => void,
  ) {}

  /** Records an entry that cannot go into the archive; returns undefined for the caller to return. */
  private leave(name: string, why: string): undefined {
    this.leftOut.push(`${displayName(name)}: ${why}`);
    return undefined;
  }

  stop(): void {
    if (this.stopped || this.finished) return;
    this.stopped = true;
    this.current?.stream?.destroy();
    this.current?.reject(new Error('archive stopped'));
    this.release();
  }

  /** Closes the handles of entries prepared but never appended. */
  private release(): void {
    for (const p of this.ahead.splice(0)) {
      void p.then((prep) => (prep && 'fh' in prep ? prep.fh.close() : prep?.packed)).catch(() => {});
    }
  }

  async run(targets: Target[]): Promise<void> {
    const items = this.items(targets);
    let more = true;
    let batch: Array<{ real: string; name: string }> = [];
    const flushBatch = () => {
      if (!batch.length) return;
      const files = batch;
      batch = [];
      const level = this.sink.readerDeflate?.level;
      const read = readSmallFilesInWorker({
        paths: files.map((f) => osPath(f.real)),
        root: osPath(this.access.rootReal),
        maxSize: READ_AHEAD_MAX_SIZE,
        maxBytes: BATCH_BYTES,
        deflate: level === undefined ? undefined : { level, store: Uint8Array.from(files, (f) => (STORED.test(f.name) ? 1 : 0)) },
      });
      files.forEach((f, i) => {
        // Without a worker, or when it fails, or for a file it did not read: here.
        const here = () => this.prepareFile(f.real, f.name);
        const prepared = read ? read.then((r) => (r.status[i] === SMALL_NOT_READ ? here() : this.fromBatch(r, i, f.name)), here) : here();
        this.ahead.push(prepared.catch(() => this.leave(f.name, UNREADABLE)));
      });
    };
    const fill = async () => {
      while (more && !this.stopped && this.ahead.length + batch.length < READ_AHEAD_ENTRIES) {
        const next = await items.next();
        if (next.done) {
          more = false;
          break;
        }
        const item = next.value;
        if (item.kind === 'folder') {
          flushBatch();
          this.ahead.push(this.prepareFolder(item).catch(() => this.leave(item.name, UNREADABLE)));
          continue;
        }
        if (item.kind === 'other') {
          this.leave(item.name, 'not a regular file');
          continue;
        }
        const real = item.kind === 'link' ? this.linkedFile(item) : item.abs;
        if (real === undefined) continue;
        batch.push({ real, name: item.name });
        if (batch.length >= BATCH_FILES) flushBatch();
      }
      flushBatch();
    };
    await fill();
    while (this.ahead.length && !this.stopped) {
      const prep = await this.ahead.shift()!;
      if (this.ahead.length <= READ_AHEAD_ENTRIES / 2) await fill();
      if (prep && !this.stopped) await this.appendPrepared(prep);
      else if (prep && 'fh' in prep) await prep.fh.close().catch(() => {});
    }
    if (this.stopped) return;
    if (this.leftOut.length) await this.appendLeftOut();
    this.finished = true;
    await this.sink.finish();
  }

  /** The last entry: which entries are missing and why (the download's status is long sent). */
  private async appendLeftOut(): Promise<void> {
    const lines = this.leftOut.sort();
    this.onLeftOut(lines);
    let name = LEFT_OUT_NAME;
    for (let n = 2; this.topNames.has(name); n++) name = LEFT_OUT_NAME.replace('.txt', `-${n}.txt`);
    const text = `fm could not put these entries into the archive:\n${lines.join('\n')}\n`;
    const data = { name, date: new Date(), mode: 0o644 };
    await this.append(data, { packed: this.pack(Buffer.from(text), data) });
  }

  /** Entry i of a worker's batch (undefined: left out). */
  private fromBatch(r: SmallReadResult, i: number, name: string): Prepared | undefined {
    if (r.status[i] !== SMALL_READ) return this.leave(name, UNREADABLE);
    const bytes = Buffer.from(r.data.buffer, r.data.byteOffset + r.off[i], r.off[i + 1] - r.off[i]);
    const data = { name, date: new Date(r.num[i * 3 + 1]), mode: r.num[i * 3] & 0o777, store: STORED.test(name) };
    const take = this.sink.readerDeflate?.take;
    if (take && r.crc && r.method) {
      const packed = { method: r.method[i] === 8 ? 8 : 0, crc: r.crc[i], size: r.num[i * 3 + 2], data: bytes } as const;
      return { data, packed: Promise.resolve(take(packed)) };
    }
    return { data, packed: this.pack(bytes, data) };
  }

  private async *items(targets: Target[]): AsyncGenerator<Item> {
    for (const t of targets) {
      if (this.stopped) return;
      if (t.isDir) {
        if (t.virtual !== this.base) yield { kind: 'folder', abs: t.real, name: entryName(this.base, t.virtual) };
        for await (const e of this.gate.visibleTree(t)) {
          if (this.stopped) return;
          const name = entryName(this.base, e.virtual);
          if (!name) continue;
          if (e.dirent.isDirectory()) yield { kind: 'folder', abs: e.abs, name };
          else if (e.dirent.isFile()) yield { kind: 'file', abs: e.abs, name };
          else if (e.dirent.isSymbolicLink()) yield { kind: 'link', abs: e.abs, name };
          else yield { kind: 'other', abs: e.abs, name };
        }
      } else {
        yield { kind: 'file', abs: t.real, name: entryName(this.base, t.virtual) };
      }
    }
  }

  private async prepareFolder(item: Item): Promise<Prepared | undefined> {
    const st = await lstat(item.abs).catch(() => undefined);
    if (!st?.isDirectory()) return this.leave(item.name, 'vanished or was replaced meanwhile');
    const data = { name: `${item.name}/`, folder: true, date: st.mtime, mode: st.mode & 0o777 };
    return { data, packed: this.pack(Buffer.alloc(0), data) };
  }

  /**
   * Where a link leads, when it is archived: links to files inside the scope are archived as
   * the file. Archives never hold links: links to folders (cycles) and dangling links are left
   * out and named in the notice; links the gate denies are left out unnamed, as listings hide them.
   */
  private linkedFile(item: Item): string | undefined {
    const link = this.gate.resolveLinkEntry(this.access, item.abs);
    if (link === 'denied') return undefined;
    if (link === 'dangling') return this.leave(item.name, 'a link whose target does not exist');
    if (link.stat.isDirectory()) return this.leave(item.name, 'a link to a folder (archives hold no links)');
    if (!link.stat.isFile()) return this.leave(item.name, 'a link to something that is not a regular file');
    return link.real;
  }

  private async prepareFile(real: string, name: string): Promise<Prepared | undefined> {
    let fh: FileHandle;
    try {
      fh = await openRealForRead(real, this.access.rootReal);
    } catch (err) {
      return this.leave(name, (err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : UNREADABLE);
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) {
        await fh.close().catch(() => {});
        return this.leave(name, 'not a regular file');
      }
      const data: EntryData = { name, date: st.mtime, mode: st.mode & 0o777, store: STORED.test(name) };
      if (st.size > READ_AHEAD_MAX_SIZE) return { data, fh, size: st.size };
      // At most the size seen by fstat, even if the file grows meanwhile.
      const buf = Buffer.allocUnsafe(st.size);
      let filled = 0;
      while (filled < st.size) {
        const { bytesRead } = await fh.read(buf, filled, st.size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      await fh.close();
      return { data, packed: this.pack(filled === st.size ? buf : buf.subarray(0, filled), data) };
    } catch {
      await fh.close().catch(() => {});
      return this.leave(name, UNREADABLE);
    }
  }

  /** Starts the sink's work on an entry's bytes (zip: deflating) ahead of its turn. */
  private pack(source: Buffer, data: EntryData): Promise<unknown> {
    const packed = this.sink.prepare(source, data);
    packed.catch(() => {}); // awaited in its turn; until then a failure must not be unhandled
    return packed;
  }

  private appendPrepared(prep: Prepared): Promise<void> {
    this.topNames.add(prep.data.name.split('/')[0]);
    if ('packed' in prep) return this.append(prep.data, prep);
    // Exactly the size announced in the tar header, even if the file grows meanwhile.
    const stream = prep.fh.createReadStream({ start: 0, end: prep.size - 1, highWaterMark: 1 << 20 });
    return this.append(prep.data, { stream, size: prep.size });
  }

  /** Hands one entry to the sink; `stop` and `fail` cut it short. */
  private append(data: EntryData, source: { packed: Promise<unknown> } | { stream: Readable; size: number }): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('archive stopped'));
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const done = (err?: Error) => {
        if (settled) return;
        settled = true;
        this.current = undefined;
        if (err) reject(err);
        else resolve();
      };
      // A read error must fail the archive even while the writer waits on the output.
      const stream = 'stream' in source ? source.stream : undefined;
      stream?.once('error', (err) => done(err));
      this.current = { stream, reject: (err) => done(err) };
      const added = 'stream' in source ? this.sink.addStream(data, source.stream, source.size) : source.packed.then((p) => this.sink.addBytes(data, p));
      added.then(() => done(), done);
    });
  }
}
