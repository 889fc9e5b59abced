/**
 * A streaming zip writer that takes entries already deflated (or stored) with their CRC and
 * sizes, so that small files can be compressed in parallel on the thread pool ahead of their
 * turn while the output stays in order (`packEntry`). Large files are streamed in their turn,
 * deflated on the way, with a data descriptor. archiver's zip engine could do neither: it
 * deflates each entry itself, one at a time, and writes each header field separately
 * (docs/decisions.md, "Performance: transfers and archives").
 *
 * Names are bytes: a name with escapes (disk/names.ts) is written as its exact bytes with the
 * UTF-8 flag (general-purpose bit 11) off; other non-ASCII names are UTF-8 with the flag on.
 * Zip64 records are written only where a size, an offset or the entry count needs them.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable, type Writable } from 'node:stream';
import { hasEscapes, nameBytes } from '../disk/names.ts';
import { writeWithBackpressure } from './write-out.ts';

/** What the archive records of an entry. `name` ends with '/' for a folder. */
export interface ZipEntryInfo {
  name: string;
  date: Date;
  mode: number;
  folder?: boolean;
}

/** An entry's bytes as they go into the archive. */
export interface PackedEntry {
  method: 0 | 8;
  crc: number;
  size: number;
  data: Buffer;
}

const deflateRaw = promisify(zlib.deflateRaw);
/** zip -6, the CLI's default. */
export const ZIP_LEVEL = 6;
const MAX32 = 0xffffffff;
/** Streamed entries at least this large get zip64 sizes (deflate can grow incompressible data a little). */
const ZIP64_STREAM_SIZE = 0xf0000000;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const MADE_BY_UNIX = 3 << 8;

/** Deflates `data` (stored when that does not make it smaller, or when `store`), with its CRC. */
export async function packEntry(data: Buffer, store: boolean): Promise<PackedEntry> {
  const crc = zlib.crc32(data);
  if (store || data.length === 0) return { method: 0, crc, size: data.length, data };
  const deflated = await deflateRaw(data, { level: ZIP_LEVEL });
  return deflated.length < data.length ? { method: 8, crc, size: data.length, data: deflated } : { method: 0, crc, size: data.length, data };
}

/** MS-DOS date and time (local time, 2-second steps, 1980 at the earliest). */
function dosDateTime(d: Date): { date: number; time: number } {
  if (d.getFullYear() < 1980) return { date: (1 << 5) | 1, time: 0 };
  return {
    date: ((d.getFullYear() - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
  };
}

interface Written {
  name: Buffer;
  flags: number;
  method: number;
  dos: { date: number; time: number };
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  attrs: number;
}

export class ZipWriter {
  private offset = 0;
  private readonly entries: Written[] = [];

  /** `deflater`: what deflates a streamed entry (default: one zlib stream; sinks.ts passes parallel pieces). */
  constructor(
    private readonly out: Writable,
    private readonly deflater: () => Transform = () => zlib.createDeflateRaw({ level: ZIP_LEVEL }),
  ) {}

  /** Writes a buffer, waiting while the output is full. */
  private write(buf: Buffer): Promise<void> {
    this.offset += buf.length;
    return writeWithBackpressure(this.out, buf);
  }

  private start(info: ZipEntryInfo, method: number, flags: number): Written {
    const escaped = hasEscapes(info.name);
    const name = nameBytes(info.name);
    const utf8 = !escaped && name.length !== info.name.length;
    const type = info.folder ? 0o040000 : 0o100000;
    return {
      name,
      flags: flags | (utf8 ? FLAG_UTF8 : 0),
      method,
      dos: dosDateTime(info.date),
      crc: 0,
      compressed: 0,
      size: 0,
      offset: this.offset,
      attrs: (((type | (info.mode & 0o7777)) << 16) | (info.folder ? 0x10 : 0)) >>> 0,
    };
  }

  /** Local file header; `zip64` adds the extra field whose sizes the data descriptor then uses. */
  private localHeader(e: Written, zip64: boolean): Buffer {
    const extra = zip64 ? 20 : 0;
    const h = Buffer.alloc(30 + e.name.length + extra);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(zip64 ? 45 : 20, 4);
    h.writeUInt16LE(e.flags, 6);
    h.writeUInt16LE(e.method, 8);
    h.writeUInt16LE(e.dos.time, 10);
    h.writeUInt16LE(e.dos.date, 12);
    if (!(e.flags & FLAG_DESCRIPTOR)) {
      h.writeUInt32LE(e.crc, 14);
      h.writeUInt32LE(e.compressed, 18);
      h.writeUInt32LE(e.size, 22);
    } else if (zip64) {
      h.writeUInt32LE(MAX32, 18);
      h.writeUInt32LE(MAX32, 22);
    }
    h.writeUInt16LE(e.name.length, 26);
    h.writeUInt16LE(extra, 28);
    e.name.copy(h, 30);
    if (zip64) {
      h.writeUInt16LE(0x0001, 30 + e.name.length);
      h.writeUInt16LE(16, 32 + e.name.length); // both sizes, zero: they follow in the descriptor
    }
    return h;
  }

  /** A folder, or a file whose bytes are packed (`packEntry`); sizes below 4 GiB. */
  async addPacked(info: ZipEntryInfo, packed: PackedEntry): Promise<void> {
    const e = this.start(info, packed.method, 0);
    e.crc = packed.crc;
    e.compressed = packed.data.length;
    e.size = packed.size;
    await this.write(this.localHeader(e, false));
    if (packed.data.length) await this.write(packed.data);
    this.entries.push(e);
  }

  /** A file streamed in its turn (deflated unless `store`), at most `size` bytes, then its data descriptor. */
  async addStream(info: ZipEntryInfo, source: Readable, size: number, store: boolean): Promise<void> {
    const e = this.start(info, store ? 0 : 8, FLAG_DESCRIPTOR);
    const zip64 = size >= ZIP64_STREAM_SIZE;
    await this.write(this.localHeader(e, zip64));
    const counted = new Transform({
      transform(chunk: Buffer, _enc, done) {
        e.crc = zlib.crc32(chunk, e.crc);
        e.size += chunk.length;
        done(null, chunk);
      },
    });
    const writeOut = async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        e.compressed += chunk.length;
        await this.write(chunk);
      }
    };
    if (store) await pipeline(source, counted, writeOut);
    else await pipeline(source, counted, this.deflater(), writeOut);
    const d = Buffer.alloc(zip64 ? 24 : 16);
    d.writeUInt32LE(0x08074b50, 0);
    d.writeUInt32LE(e.crc, 4);
    if (zip64) {
      d.writeBigUInt64LE(BigInt(e.compressed), 8);
      d.writeBigUInt64LE(BigInt(e.size), 16);
    } else {
      d.writeUInt32LE(e.compressed, 8);
      d.writeUInt32LE(e.size, 12);
    }
    await this.write(d);
    this.entries.push(e);
  }

  /** The central directory and its end records; then ends the output. */
  async finish(): Promise<void> {
    const start = this.offset;
    for (const e of this.entries) await this.write(centralHeader(e));
    const size = this.offset - start;
    const count = this.entries.length;
    if (count >= 0xffff || start >= MAX32 || size >= MAX32) {
      const at = this.offset;
      const z = Buffer.alloc(56 + 20);
      z.writeUInt32LE(0x06064b50, 0);
      z.writeBigUInt64LE(44n, 4);
      z.writeUInt16LE(MADE_BY_UNIX | 45, 12);
      z.writeUInt16LE(45, 14);
      z.writeBigUInt64LE(BigInt(count), 24);
      z.writeBigUInt64LE(BigInt(count), 32);
      z.writeBigUInt64LE(BigInt(size), 40);
      z.writeBigUInt64LE(BigInt(start), 48);
      z.writeUInt32LE(0x07064b50, 56);
      z.writeBigUInt64LE(BigInt(at), 64);
      z.writeUInt32LE(1, 72);
      await this.write(z);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(Math.min(count, 0xffff), 8);
    end.writeUInt16LE(Math.min(count, 0xffff), 10);
    end.writeUInt32LE(Math.min(size, MAX32), 12);
    end.writeUInt32LE(Math.min(start, MAX32), 16);
    await this.write(end);
    this.out.end();
  }
}

/** A central directory record, with a zip64 extra field holding whichever values overflow. */
function centralHeader(e: Written): Buffer {
  const big = [e.size, e.compressed, e.offset].map((v) => v >= MAX32);
  const extraValues = [e.size, e.compressed, e.offset].filter((_, i) => big[i]);
  const extra = extraValues.length ? 4 + 8 * extraValues.length : 0;
  const version = extra ? 45 : 20;
  const h = Buffer.alloc(46 + e.name.length + extra);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE(MADE_BY_UNIX | version, 4);
  h.writeUInt16LE(version, 6);
  h.writeUInt16LE(e.flags, 8);
  h.writeUInt16LE(e.method, 10);
  h.writeUInt16LE(e.dos.time, 12);
  h.writeUInt16LE(e.dos.date, 14);
  h.writeUInt32LE(e.crc, 16);
  h.writeUInt32LE(big[1] ? MAX32 : e.compressed, 20);
  h.writeUInt32LE(big[0] ? MAX32 : e.size, 24);
  h.writeUInt16LE(e.name.length, 28);
  h.writeUInt16LE(extra, 30);
  h.writeUInt32LE(e.attrs, 38);
  h.writeUInt32LE(big[2] ? MAX32 : e.offset, 42);
  e.name.copy(h, 46);
  if (extra) {
    let at = 46 + e.name.length;
    h.writeUInt16LE(0x0001, at);
    h.writeUInt16LE(extra - 4, at + 2);
    at += 4;
    for (const v of extraValues) {
      h.writeBigUInt64LE(BigInt(v), at);
      at += 8;
    }
  }
  return h;
}
