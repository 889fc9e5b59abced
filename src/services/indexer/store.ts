/**
 * The entries of the search index, stored as columns (typed arrays) so a million entries cost
 * tens of megabytes: parent id, name, size, modified time, flags. Ids are never reused while
 * the store lives and names never change for an id (a rename is a removal plus an addition),
 * so trigram posting lists stay sorted; removed entries are tombstoned until a rebuild.
 */

export const FLAG_DIR = 1;
export const FLAG_LINK = 2;
export const FLAG_DEAD = 4;
/** The type code (see TYPE_CODES) lives in bits 4–7. */
const TYPE_SHIFT = 4;

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

export class EntryStore {
  parent = new Int32Array(1024);
  size = new Float64Array(1024);
  mtime = new Float64Array(1024);
  flags = new Uint8Array(1024);
  names: string[] = [];
  /** Child ids per folder id (undefined for files). */
  children: Array<number[] | undefined> = [];
  /** Total size of everything under a folder (files only count their own size). */
  treeSize = new Float64Array(1024);
  /** Number of entries under a folder, at any depth (0 for files). */
  treeCount = new Float64Array(1024);
  count = 0;
  live = 0;

  constructor() {
    this.push(-1, { name: '', size: 0, mtimeMs: 0, isDir: true, isLink: false, type: '' });
  }

  private grow(min: number): void {
    let cap = this.parent.length;
    if (min <= cap) return;
    while (cap < min) cap *= 2;
    const g = <T extends Int32Array | Float64Array | Uint8Array>(a: T, C: new (n: number) => T): T => {
      const b = new C(cap);
      b.set(a);
      return b;
    };
    this.parent = g(this.parent, Int32Array);
    this.size = g(this.size, Float64Array);
    this.mtime = g(this.mtime, Float64Array);
    this.flags = g(this.flags, Uint8Array);
    this.treeSize = g(this.treeSize, Float64Array);
    this.treeCount = g(this.treeCount, Float64Array);
  }

  private push(parent: number, e: EntryData): number {
    const id = this.count++;
    this.grow(this.count);
    this.parent[id] = parent;
    this.size[id] = e.isDir ? 0 : e.size;
    this.mtime[id] = e.mtimeMs;
    this.flags[id] = (e.isDir ? FLAG_DIR : 0) | (e.isLink ? FLAG_LINK : 0) | (TYPE_CODES.indexOf(e.type) << TYPE_SHIFT);
    this.names[id] = e.name;
    this.children[id] = e.isDir ? [] : undefined;
    this.treeSize[id] = e.isDir ? 0 : e.size;
    this.treeCount[id] = 0;
    this.live++;
    return id;
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

  /** The child of a folder with that name, or -1. */
  child(dir: number, name: string): number {
    const kids = this.children[dir];
    if (!kids) return -1;
    for (const id of kids) if (this.names[id] === name) return id;
    return -1;
  }

  /** Adds a new entry under `dir` (the caller makes sure the name is not there yet). */
  add(dir: number, e: EntryData): number {
    const id = this.push(dir, e);
    this.children[dir]!.push(id);
    if (!e.isDir && e.size) this.addTreeSize(dir, e.size);
    for (let d = dir; d >= 0; d = this.parent[d]) this.treeCount[d]++;
    return id;
  }

  /** Updates size and mtime of an entry; folder totals follow. */
  update(id: number, size: number, mtimeMs: number): void {
    this.mtime[id] = mtimeMs;
    if (this.isDir(id)) return;
    const delta = size - this.size[id];
    if (delta) {
      this.size[id] = size;
      this.treeSize[id] = size;
      this.addTreeSize(this.parent[id], delta);
    }
  }

  private addTreeSize(dir: number, delta: number): void {
    for (let d = dir; d >= 0; d = this.parent[d]) this.treeSize[d] += delta;
  }

  /** Removes an entry and everything under it; returns the removed ids. */
  remove(id: number): number[] {
    if (id === ROOT_ID || this.isDead(id)) return [];
    const parent = this.parent[id];
    const kids = this.children[parent];
    if (kids) {
      const i = kids.indexOf(id);
      if (i >= 0) kids.splice(i, 1);
    }
    this.addTreeSize(parent, -this.treeSize[id]);
    for (let d = parent; d >= 0; d = this.parent[d]) this.treeCount[d] -= this.treeCount[id] + 1;
    const removed: number[] = [];
    const stack = [id];
    while (stack.length) {
      const cur = stack.pop()!;
      this.flags[cur] |= FLAG_DEAD;
      this.live--;
      removed.push(cur);
      const c = this.children[cur];
      if (c) for (const k of c) stack.push(k);
      this.children[cur] = undefined;
    }
    return removed;
  }

  /** Path segments from the root to the entry ("" for the root). */
  pathOf(id: number): string {
    if (id === ROOT_ID) return '';
    const parts: string[] = [];
    for (let cur = id; cur !== ROOT_ID && cur >= 0; cur = this.parent[cur]) parts.push(this.names[cur]);
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
    for (let cur = id; cur >= 0; cur = this.parent[cur]) if (cur === ancestor) return true;
    return false;
  }

  get deadRatio(): number {
    return this.count ? 1 - this.live / this.count : 0;
  }
}
