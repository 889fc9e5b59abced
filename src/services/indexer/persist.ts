/**
 * Snapshots of the entry store in a compact binary file, so a restart reconciles instead of
 * rescanning. Written to a temporary file and renamed into place; a damaged or foreign
 * snapshot is ignored (the index is rebuilt). Names are stored as the UTF-8 of fm's string
 * form (files/disk/names.ts), which keeps names that are not UTF-8 exactly. This module writes
 * fm's own file in fm's data folder, so it uses node:fs directly.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { EntryStore, FLAG_DEAD, FLAG_NEXT, ROOT_ID, TYPE_CODES } from './store.ts';

// Version 3: names that are not UTF-8 are kept exactly (version 2 snapshots hold them mangled
// into U+FFFD, and folder mtimes would never tell the reconciliation to fix them).
const MAGIC = Buffer.from('FMIDX\u0003', 'latin1');
// Small enough that serialising one chunk (some 6,000 entries) never holds up a search for long.
const CHUNK = 256 << 10;

/**
 * Writes the live entries folder by folder, depth first (parents before children): a folder's
 * entries are together, so once loaded they have consecutive ids and their sibling links cost
 * the store nothing (store.ts, FLAG_NEXT). `between` is awaited before each chunk is filled
 * (the index's searches go first: search-activity.ts).
 */
export async function saveSnapshot(store: EntryStore, root: string, file: string, between?: () => Promise<void>): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}`;
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const fh = await fsp.open(tmp, 'w', 0o600);
  try {
    // One buffer, reused once each chunk is written: a new one per chunk left ~40 MiB to the
    // next major collection (resident until then) after each snapshot of a million entries.
    const buf = Buffer.allocUnsafe(CHUNK);
    let off = 0;
    const flush = async () => {
      if (off) await fh.write(buf, 0, off);
      off = 0;
      await between?.();
    };
    const rootBytes = Buffer.from(root);
    const header = Buffer.alloc(MAGIC.length + 8 + rootBytes.length);
    MAGIC.copy(header, 0);
    header.writeUInt32LE(rootBytes.length, MAGIC.length);
    rootBytes.copy(header, MAGIC.length + 4);
    header.writeUInt32LE(store.live - 1, MAGIC.length + 4 + rootBytes.length);
    await fh.write(header);
    await between?.();
    // Records are numbered in the order written (the root is 0); a record names its parent by
    // that number. The folders still to write wait on a stack, each with its number.
    let next = 1;
    const folders = [ROOT_ID, 0];
    while (folders.length) {
      const parentNumber = folders.pop()!;
      const dir = folders.pop()!;
      const below = folders.length;
      for (let id = store.firstChild(dir); id >= 0; id = store.nextSibling(id)) {
        if (store.isDir(id)) folders.push(id, next);
        next++;
        const nameLength = store.nameLength(id);
        const need = 4 + 1 + 8 + 8 + 2 + nameLength;
        if (off + need > buf.length) await flush();
        off = buf.writeInt32LE(parentNumber, off);
        off = buf.writeUInt8(store.flags[id] & ~(FLAG_DEAD | FLAG_NEXT), off);
        off = buf.writeDoubleLE(store.sizeOf(id), off);
        off = buf.writeDoubleLE(store.mtime[id], off);
        off = buf.writeUInt16LE(nameLength, off);
        off += store.copyName(id, buf, off);
      }
      // Its first sub-folder is written next.
      reversePairs(folders, below);
    }
    await flush();
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
}

/** Reverses the order of the pairs in `a` from index `from` on. */
function reversePairs(a: number[], from: number): void {
  for (let i = from, j = a.length - 2; i < j; i += 2, j -= 2) {
    const x = a[i];
    const y = a[i + 1];
    a[i] = a[j];
    a[i + 1] = a[j + 1];
    a[j] = x;
    a[j + 1] = y;
  }
}

/** Record header: parent, flags, size, mtime, name length. */
const RECORD = 4 + 1 + 8 + 8 + 2;

/**
 * Reads a file forward through one reused buffer: loading a million entries never holds the
 * whole snapshot (~40 MB), which would stay resident until a major collection.
 */
class ChunkReader {
  buf = Buffer.allocUnsafe(CHUNK);
  private start = 0;
  private end = 0;

  constructor(private readonly fd: number) {}

  /** Makes `n` bytes available; returns their offset in `buf`. Throws at the end of the file. */
  need(n: number): number {
    if (this.end - this.start >= n) return this.start;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafe(n);
      this.buf.copy(bigger, 0, this.start, this.end);
      this.buf = bigger;
    } else {
      this.buf.copy(this.buf, 0, this.start, this.end);
    }
    this.end -= this.start;
    this.start = 0;
    while (this.end < n) {
      const got = fs.readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (!got) throw new RangeError('snapshot ends early');
      this.end += got;
    }
    return 0;
  }

  consume(n: number): void {
    this.start += n;
  }

  atEnd(): boolean {
    return this.start === this.end && fs.readSync(this.fd, this.buf, 0, 1, null) === 0;
  }
}

/** Loads a snapshot into a fresh store, or returns undefined when missing, damaged or for another root. */
export function loadSnapshot(file: string, root: string, onAdd: (id: number, name: string) => void): EntryStore | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const r = new ChunkReader(fd);
    let off = r.need(MAGIC.length + 4);
    if (!r.buf.subarray(off, off + MAGIC.length).equals(MAGIC)) return undefined;
    const rootLen = r.buf.readUInt32LE(off + MAGIC.length);
    r.consume(MAGIC.length + 4);
    off = r.need(rootLen + 4);
    if (r.buf.toString('utf8', off, off + rootLen) !== root) return undefined;
    const count = r.buf.readUInt32LE(off + rootLen);
    r.consume(rootLen + 4);
    // Sized once from the header and the file's length (every byte past the records' headers is
    // a name): loading grows nothing, so no outgrown columns wait for the event loop to be freed.
    const nameBytes = fs.fstatSync(fd).size - (MAGIC.length + 8 + rootLen) - count * RECORD;
    if (nameBytes < 0) return undefined;
    // (The store makes room for a name by its worst case, 3 bytes a UTF-16 unit: 1 KiB more.)
    const store = new EntryStore({ entries: count + 1, nameBytes: nameBytes + 1024 });
    for (let i = 0; i < count; i++) {
      const len = r.buf.readUInt16LE(r.need(RECORD) + RECORD - 2);
      off = r.need(RECORD + len);
      const data = r.buf;
      const parent = data.readInt32LE(off);
      const flags = data.readUInt8(off + 4);
      const name = data.toString('utf8', off + RECORD, off + RECORD + len);
      if (parent < 0 || parent >= store.count || !store.isDir(parent)) return undefined;
      const id = store.add(parent, {
        name,
        size: data.readDoubleLE(off + 5),
        mtimeMs: data.readDoubleLE(off + 13),
        isDir: (flags & 1) !== 0,
        isLink: (flags & 2) !== 0,
        type: TYPE_CODES[flags >> 4] ?? 'blob',
      });
      r.consume(RECORD + len);
      onAdd(id, name);
    }
    return r.atEnd() ? store : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
