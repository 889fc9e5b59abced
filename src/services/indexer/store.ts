/**
 * The entries of the search index, stored as columns so a million entries cost a few tens of
 * megabytes and almost nothing for the garbage collector to trace: names packed one after the
 * other into one byte buffer (the UTF-8 of fm's string form, files/disk/names.ts, so a name that
 * is not UTF-8 keeps its exact bytes), size, modified time, flags. A folder's entries mostly have
 * consecutive ids, so the next sibling is a flag (id + 1) and a small map for the rest, and the
 * parent is kept per run of ids (parents.ts).
 * Folders have a slot in a few more columns (first and last child, total size and count below).
 * Ids are never reused while the store lives and names never change for an id (a rename is a
 * removal plus an addition), so trigram posting lists stay sorted; removed entries are
 * tombstoned until a rebuild.
 */

import { columnLength, grownColumn as grown } from './columns.ts';
import { NameOffsets } from './name-offsets.ts';
import { Parents } from './parents.ts';
import { freeNow } from './free-now.ts';
import { ChildLookups, LOOKUP_MIN } from './child-lookup.ts';

export const FLAG_DIR = 1;
export const FLAG_LINK = 2;
export const FLAG_DEAD = 4;
/** The next entry of the same folder is id + 1 (else see `nextFar`). */
export const FLAG_NEXT = 8;
/** The type code (see TYPE_CODES) lives in bits 4–7. */
export const TYPE_SHIFT = 4;

export const TYPE_CODES = ['', 'image', 'audio', 'video', 'pdf', 'text', 'blob'] as const;
export type IndexedType = (typeof TYPE_CODES)[number];

export interface EntryData {
  name: string;
  size: number;
  mtimeMs: number;
  isDir: boolean;
  isLink: boolean;
  type: IndexedType;
}

export const ROOT_ID = 0;

/** The stat that vouches for a folder's listed children (markListed). */
export interface FolderStat {
  dev: number;
  ino: number;
  ctimeMs: number;
}

/** How many children a listed folder has, and of them folders and links. */
export interface ListedCounts {
  children: number;
  dirs: number;
  links: number;
}

/** Numbers per folder slot in the `listed` column: dev, ino, ctime, children, folders, links. */
const LISTED = 6;
const NONE = -1;
/** A file of 4 GiB or more: its size is in `bigSizes`. */
const BIG = 0xffffffff;

/** `bytes` in a buffer of at least `size` bytes (the first `used` copied); the old one is released. */
function grownBytes(bytes: Buffer<ArrayBuffer>, used: number, size: number): Buffer<ArrayBuffer> {
  const bigger = Buffer.alloc(columnLength(1, Math.max(size, bytes.length * 2)));
  bytes.copy(bigger, 0, 0, used);
  freeNow(bytes);
  return bigger;
}

export class EntryStore {
  private readonly parents = new Parents();
  /** The next entry of the same folder where it is not id + 1 (FLAG_NEXT); none when absent. */
  private readonly nextFar = new Map<number, number>();
  /** Large folders' children by name and previous sibling (child-lookup.ts), so a change there walks no list. */
  private readonly lookups = new ChildLookups();
  flags = new Uint8Array(1024);
  /** Modified time, ms (exact: folders' are compared with the disk's when reconciling). */
  mtime = new Float64Array(1024);
  /** A file's size (BIG: see bigSizes), or a folder's slot in the folder columns. */
  private sizeOrSlot = new Uint32Array(1024);
  private readonly bigSizes = new Map<number, number>();
  /** Where each name lies in `nameBytes`. */
  private readonly names = new NameOffsets(1024);
  private nameBytes = Buffer.alloc(16 * 1024);
  /** Folder columns, by slot. */
  private first = new Int32Array(256);
  private last = new Int32Array(256);
  private treeBytes = new Float64Array(256);
  private treeEntries = new Uint32Array(256);
  /**
   * A folder's dev, ino and ctime as the scan read its children, and how many children, folders
   * and links it read (LISTED per slot), while those children are exactly what it read, in name
   * order (`markListed`); the ctime is NaN otherwise.
   */
  private listed = new Float64Array(256 * LISTED);
  private folders = 0;
  private folderCapacity = 256;
  /** Entries the columns have room for. */
  private capacity = 1024;
  /** Scratch space for a name looked up by its bytes. */
  private probe = Buffer.alloc(1024);
  count = 0;
  live = 0;

  /** `reserve`: room for that many entries and name bytes when known (a snapshot), so loading grows nothing. */
  constructor(reserve?: { entries: number; nameBytes: number }) {
    if (reserve) {
      this.growEntries(reserve.entries);
      if (reserve.nameBytes > this.nameBytes.length) this.nameBytes = grownBytes(this.nameBytes, 0, reserve.nameBytes);
    }
    this.push(NONE, { name: '', size: 0, mtimeMs: 0, isDir: true, isLink: false, type: '' });
  }

  private growEntries(min: number): void {
    if (min <= this.capacity) return;
    // A reservation is exact; growth by doubling.
    const exact = this.count === 0;
    this.flags = grown(this.flags, min, exact);
    this.mtime = grown(this.mtime, min, exact);
    this.sizeOrSlot = grown(this.sizeOrSlot, min, exact);
    this.names.grow(min, exact);
    // Columns may be longer than asked (columns.ts), each by its own element size.
    this.capacity = Math.min(this.flags.length, this.mtime.length, this.sizeOrSlot.length, this.names.capacity);
  }

  private newFolderSlot(): number {
    const slot = this.folders++;
    if (slot >= this.folderCapacity) {
      this.first = grown(this.first, slot + 1);
      this.last = grown(this.last, slot + 1);
      this.treeBytes = grown(this.treeBytes, slot + 1);
      this.treeEntries = grown(this.treeEntries, slot + 1);
      this.listed = grown(this.listed, (slot + 1) * LISTED);
      this.folderCapacity = Math.min(
        this.first.length,
        this.last.length,
        this.treeBytes.length,
        this.treeEntries.length,
        Math.floor(this.listed.length / LISTED),
      );
    }
    this.listed[slot * LISTED + 2] = Number.NaN;
    this.first[slot] = NONE;
    this.last[slot] = NONE;
    this.treeBytes[slot] = 0;
    this.treeEntries[slot] = 0;
    return slot;
  }

  private appendName(id: number, name: string): void {
    const start = this.names.used;
    const most = start + name.length * 3;
    if (most > this.nameBytes.length) this.nameBytes = grownBytes(this.nameBytes, start, most);
    // Most names are ASCII: copied here in a loop, cheaper than a call into Buffer's encoder each.
    const bytes = this.nameBytes;
    const n = name.length;
    let i = 0;
    while (i < n) {
      const c = name.charCodeAt(i);
      if (c >= 0x80) break;
      bytes[start + i++] = c;
    }
    this.names.push(id, i === n ? n : bytes.write(name, start));
  }

  private push(parent: number, e: EntryData): number {
    const flags = (e.isDir ? FLAG_DIR : 0) | (e.isLink ? FLAG_LINK : 0) | (TYPE_CODES.indexOf(e.type) << TYPE_SHIFT);
    const id = this.pushColumns(parent, flags, e.size, e.mtimeMs);
    this.appendName(id, e.name);
    return id;
  }

  /** A new id with every column but its name set. */
  private pushColumns(parent: number, flags: number, size: number, mtimeMs: number): number {
    const id = this.count++;
    this.growEntries(this.count);
    this.parents.push(id, parent);
    this.mtime[id] = mtimeMs;
    this.flags[id] = flags;
    if (flags & FLAG_DIR) this.sizeOrSlot[id] = this.newFolderSlot();
    else this.setFileSize(id, size);
    this.live++;
    return id;
  }

  private setFileSize(id: number, size: number): void {
    if (size >= BIG) {
      this.sizeOrSlot[id] = BIG;
      this.bigSizes.set(id, size);
    } else {
      this.sizeOrSlot[id] = size;
      this.bigSizes.delete(id);
    }
  }

  /** The folder an entry is in (-1 for the root). */
  parentOf(id: number): number {
    return this.parents.get(id);
  }

  isDir(id: number): boolean {
    return (this.flags[id] & FLAG_DIR) !== 0;
  }

  isLink(id: number): boolean {
    return (this.flags[id] & FLAG_LINK) !== 0;
  }

  isDead(id: number): boolean {
    return (this.flags[id] & FLAG_DEAD) !== 0;
  }

  typeOf(id: number): IndexedType {
    return TYPE_CODES[this.flags[id] >> TYPE_SHIFT] ?? '';
  }

  name(id: number): string {
    const start = this.names.start(id);
    return this.nameBytes.toString('utf8', start, start + this.names.length(id));
  }

  /**
   * Whether the name holds `needle` (UTF-8 bytes in fm's string form): exactly, or ignoring ASCII
   * case when `foldAscii` (the needle is then lower-case ASCII). Undefined when folding and the
   * name is not all ASCII: the caller compares lower-cased strings instead.
   */
  nameHas(id: number, needle: Uint8Array, foldAscii: boolean): boolean | undefined {
    const bytes = this.nameBytes;
    const start = this.names.start(id);
    const end = start + this.names.length(id);
    const n = needle.length;
    if (!foldAscii) {
      next: for (let i = start; i + n <= end; i++) {
        for (let j = 0; j < n; j++) if (bytes[i + j] !== needle[j]) continue next;
        return true;
      }
      return false;
    }
    // An ASCII match is a match of the lower-cased string too; no match decides only for ASCII names.
    let high = false;
    for (let i = start; i < end; i++) {
      if (bytes[i] >= 0x80) {
        high = true;
        continue;
      }
      if (i + n > end) continue;
      let j = 0;
      while (j < n) {
        const b = bytes[i + j];
        if ((b >= 0x41 && b <= 0x5a ? b | 0x20 : b) !== needle[j]) break;
        j++;
      }
      if (j === n) return true;
    }
    return high ? undefined : false;
  }

  /** How many bytes the name takes. */
  nameLength(id: number): number {
    return this.names.length(id);
  }

  /** Copies the name's bytes into `target` at `offset`; returns how many. */
  copyName(id: number, target: Buffer, offset: number): number {
    // A loop, not Buffer#copy: that makes a view of the source per call (a snapshot of a
    // million entries made 90 MiB of garbage, which grew the young generation for good).
    const bytes = this.nameBytes;
    const start = this.names.start(id);
    const n = this.names.length(id);
    for (let i = 0; i < n; i++) target[offset + i] = bytes[start + i];
    return n;
  }

  /** A file's size (0 for a folder). */
  sizeOf(id: number): number {
    if (this.isDir(id)) return 0;
    const s = this.sizeOrSlot[id];
    return s === BIG ? this.bigSizes.get(id)! : s;
  }

  /** Total size of everything under a folder; a file's own size. */
  treeSizeOf(id: number): number {
    return this.isDir(id) ? this.treeBytes[this.sizeOrSlot[id]] : this.sizeOf(id);
  }

  /** How many entries are under a folder, at any depth (0 for files): quotas read it. */
  treeCountOf(id: number): number {
    return this.isDir(id) ? this.treeEntries[this.sizeOrSlot[id]] : 0;
  }

  /** The ids in a folder, in the order they were added (none for a file). */
  childIds(dir: number): number[] {
    const out: number[] = [];
    if (!this.isDir(dir)) return out;
    for (let c = this.first[this.sizeOrSlot[dir]]; c !== NONE; c = this.nextSibling(c)) out.push(c);
    return out;
  }

  /** A folder's first child, or -1 (none, or a file): with nextSibling, a walk that makes no arrays. */
  firstChild(dir: number): number {
    return this.isDir(dir) ? this.first[this.sizeOrSlot[dir]] : NONE;
  }

  /** The entry after `id` in its folder, or -1. */
  nextSibling(id: number): number {
    return this.flags[id] & FLAG_NEXT ? id + 1 : (this.nextFar.get(id) ?? NONE);
  }

  private setNext(id: number, next: number): void {
    if (next === id + 1) {
      this.flags[id] |= FLAG_NEXT;
      this.nextFar.delete(id);
      return;
    }
    this.flags[id] &= ~FLAG_NEXT;
    if (next === NONE) this.nextFar.delete(id);
    else this.nextFar.set(id, next);
  }

  /** The child of a folder with that name, or -1. */
  child(dir: number, name: string): number {
    if (!this.isDir(dir)) return NONE;
    const l = this.lookups.get(dir);
    const mappable = ChildLookups.mappable(name);
    if (l && mappable) return l.byName.get(name) ?? NONE;
    if (this.probe.length < name.length * 3) this.probe = Buffer.alloc(name.length * 3);
    const len = this.probe.write(name, 0);
    const bytes = this.nameBytes;
    let walked = 0;
    for (let c = this.first[this.sizeOrSlot[dir]]; c !== NONE; c = this.nextSibling(c), walked++) {
      if (this.names.length(c) !== len) continue;
      const start = this.names.start(c);
      let i = 0;
      while (i < len && bytes[start + i] === this.probe[i]) i++;
      if (i === len) return c;
    }
    // A long walk for nothing (a new name, a create): the next lookups here go through a map.
    if (!l && mappable && walked >= LOOKUP_MIN) this.lookups.make(dir, this.childIds(dir), (id) => this.name(id));
    return NONE;
  }

  /**
   * Records that `dir`'s children are exactly those the scan read after taking the folder's
   * stat `st`, in name order (the shared sort key of src/api): listings may take a page from them
   * while the folder's stat is unchanged (`listedAs`). Any later change to the children forgets it.
   */
  markListed(dir: number, st: FolderStat, counts: ListedCounts): void {
    const at = this.sizeOrSlot[dir] * LISTED;
    this.listed[at] = st.dev;
    this.listed[at + 1] = st.ino;
    this.listed[at + 2] = st.ctimeMs;
    this.listed[at + 3] = counts.children;
    this.listed[at + 4] = counts.dirs;
    this.listed[at + 5] = counts.links;
  }

  /** What the scan read of `dir` when it is marked listed (markListed) with this stat; else undefined. */
  listedAs(dir: number, st: FolderStat): ListedCounts | undefined {
    if (!this.isDir(dir) || this.isDead(dir)) return undefined;
    const at = this.sizeOrSlot[dir] * LISTED;
    const l = this.listed;
    if (l[at + 2] !== st.ctimeMs || l[at + 1] !== st.ino || l[at] !== st.dev) return undefined;
    return { children: l[at + 3], dirs: l[at + 4], links: l[at + 5] };
  }

  /**
   * Puts `dir`'s children in the order given (exactly its children, each once): a folder put in
   * name order again before it is marked listed (relist.ts). Runs of consecutive ids stay implied
   * links; only the places where the order jumps take a map entry.
   */
  relinkChildren(dir: number, ordered: ArrayLike<number>): void {
    const slot = this.sizeOrSlot[dir];
    const n = ordered.length;
    this.forgetListed(dir);
    this.lookups.reordered(dir, ordered);
    this.first[slot] = n ? ordered[0] : NONE;
    this.last[slot] = n ? ordered[n - 1] : NONE;
    for (let i = 0; i < n; i++) this.setNext(ordered[i], i + 1 < n ? ordered[i + 1] : NONE);
  }

  /** Whether `dir` was marked listed at some time (its counts stay when the mark is forgotten). */
  wasListed(dir: number): boolean {
    return this.isDir(dir) && this.listed[this.sizeOrSlot[dir] * LISTED + 3] > 0;
  }

  private forgetListed(dir: number): void {
    this.listed[this.sizeOrSlot[dir] * LISTED + 2] = Number.NaN;
  }

  /** Adds a new entry under `dir` (the caller makes sure the name is not there yet). */
  add(dir: number, e: EntryData): number {
    this.forgetListed(dir);
    const id = this.push(dir, e);
    this.linkLast(dir, id);
    if (!e.isDir && e.size) this.addTreeSize(dir, e.size);
    this.addTreeCount(dir, 1);
    return id;
  }

  /**
   * Adds entries under `dir` from a scan batch (files/disk/tree-scan.ts): entry i's name is the
   * bytes `names[i ? ends[i - 1] : 0 .. ends[i])`, its flags FLAG_DIR / FLAG_LINK and the type
   * code. Their ids are consecutive; returns the first.
   */
  addPacked(dir: number, names: Uint8Array, ends: Uint32Array, flags: Uint8Array, size: Float64Array, mtime: Float64Array): number {
    const first = this.count;
    const n = ends.length;
    if (!n) return first;
    this.forgetListed(dir);
    const base = this.names.used;
    const used = ends[n - 1];
    if (base + used > this.nameBytes.length) this.nameBytes = grownBytes(this.nameBytes, base, base + used);
    this.nameBytes.set(names.subarray(0, used), base);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const id = this.pushColumns(dir, flags[i], size[i], mtime[i]);
      this.names.push(id, ends[i] - (i ? ends[i - 1] : 0));
      this.linkLast(dir, id);
      if (!(flags[i] & FLAG_DIR)) bytes += size[i];
    }
    if (bytes) this.addTreeSize(dir, bytes);
    this.addTreeCount(dir, n);
    return first;
  }

  /** Makes `id` the last child of `dir`. */
  private linkLast(dir: number, id: number): void {
    const slot = this.sizeOrSlot[dir];
    const last = this.last[slot];
    this.lookups.added(dir, id, last, (c) => this.name(c));
    if (last === NONE) this.first[slot] = id;
    // The last entry has no next yet: no link to drop from the map.
    else if (id === last + 1) this.flags[last] |= FLAG_NEXT;
    else this.nextFar.set(last, id);
    this.last[slot] = id;
  }

  /** Updates size and mtime of an entry; folder totals follow. */
  update(id: number, size: number, mtimeMs: number): void {
    this.mtime[id] = mtimeMs;
    if (this.isDir(id)) return;
    const delta = size - this.sizeOf(id);
    if (delta) {
      this.setFileSize(id, size);
      this.addTreeSize(this.parentOf(id), delta);
    }
  }

  private addTreeSize(dir: number, delta: number): void {
    for (let d = dir; d >= 0; d = this.parentOf(d)) this.treeBytes[this.sizeOrSlot[d]] += delta;
  }

  private addTreeCount(dir: number, delta: number): void {
    for (let d = dir; d >= 0; d = this.parentOf(d)) this.treeEntries[this.sizeOrSlot[d]] += delta;
  }

  /** Removes an entry and everything under it; returns the removed ids. */
  remove(id: number): number[] {
    if (id === ROOT_ID || this.isDead(id)) return [];
    const parent = this.parentOf(id);
    this.unlink(parent, id);
    this.addTreeSize(parent, -this.treeSizeOf(id));
    this.addTreeCount(parent, -(this.treeCountOf(id) + 1));
    const removed: number[] = [];
    const stack = [id];
    while (stack.length) {
      const cur = stack.pop()!;
      this.flags[cur] |= FLAG_DEAD;
      this.bigSizes.delete(cur);
      this.live--;
      removed.push(cur);
      // Its own link was read when its folder's entries were pushed (or dropped by unlink).
      this.setNext(cur, NONE);
      if (!this.isDir(cur)) continue;
      this.lookups.drop(cur);
      const slot = this.sizeOrSlot[cur];
      for (let c = this.first[slot]; c !== NONE; c = this.nextSibling(c)) stack.push(c);
      this.first[slot] = this.last[slot] = NONE;
    }
    return removed;
  }

  private unlink(dir: number, id: number): void {
    this.forgetListed(dir);
    const slot = this.sizeOrSlot[dir];
    const l = this.lookups.get(dir);
    if (l && !l.prev.has(id)) {
      this.lookups.drop(dir); // not expected: walk as before
    } else if (l) {
      const prev = l.prev.get(id)!;
      const next = this.nextSibling(id);
      this.lookups.removed(l, id, this.name(id), next);
      if (prev === NONE) this.first[slot] = next;
      else this.setNext(prev, next);
      if (this.last[slot] === id) this.last[slot] = prev;
      this.setNext(id, NONE);
      return;
    }
    let prev = NONE;
    for (let c = this.first[slot]; c !== NONE; prev = c, c = this.nextSibling(c)) {
      if (c !== id) continue;
      const next = this.nextSibling(c);
      if (prev === NONE) this.first[slot] = next;
      else this.setNext(prev, next);
      if (this.last[slot] === c) this.last[slot] = prev;
      this.setNext(c, NONE);
      return;
    }
  }

  /** Path segments from the root to the entry ("" for the root). */
  pathOf(id: number): string {
    if (id === ROOT_ID) return '';
    const parts: string[] = [];
    for (let cur = id; cur !== ROOT_ID && cur >= 0; cur = this.parentOf(cur)) parts.push(this.name(cur));
    return `/${parts.reverse().join('/')}`;
  }

  /** The entry at a root-relative path ("/a/b"), or -1. */
  lookup(rel: string): number {
    let cur = ROOT_ID;
    for (const seg of rel.split('/')) {
      if (!seg) continue;
      cur = this.child(cur, seg);
      if (cur < 0) return -1;
    }
    return cur;
  }

  /** Whether `id` is `ancestor` or below it. */
  isUnder(id: number, ancestor: number): boolean {
    for (let cur = id; cur >= 0; cur = this.parentOf(cur)) if (cur === ancestor) return true;
    return false;
  }

  get deadRatio(): number {
    return this.count ? 1 - this.live / this.count : 0;
  }
}
