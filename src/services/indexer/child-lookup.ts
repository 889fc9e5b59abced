/**
 * Large folders' children by name, and each child's previous sibling, for the index's store
 * (store.ts): without them, looking a child up (every watcher event in the folder) and unlinking
 * it (every delete) walk the folder's sibling list, ~0.5 ms for 100,000 children, several hundred
 * times a second in a large folder receiving creates and deletes (docs/decisions.md,
 * "Performance: the first page during creates, to 3×"). Made for a folder when a walk there goes
 * past LOOKUP_MIN siblings, then kept in step by the store's every change to the folder's
 * children; at most MAX_MAPPED children over all folders, the least recently used folder's
 * dropped first (it walks again).
 */
import { UseOrderMap } from '../use-order-map.ts';

/** A walk of at least this many siblings makes the folder's lookup. */
export const LOOKUP_MIN = 1024;
/** Children mapped over all folders (~100 bytes each). */
const MAX_MAPPED = 250_000;

/** One folder's children: id by name (fm's string form), previous sibling by id (-1 for the first). */
export interface FolderLookup {
  byName: Map<string, number>;
  prev: Map<number, number>;
}

/** A name whose UTF-8 is not a round trip (a lone surrogate): compared as bytes by a walk, as before. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export class ChildLookups {
  private readonly folders = new UseOrderMap<number, FolderLookup>();
  private mapped = 0;

  /** The lookup of folder `dir`, if made (and marks it used). */
  get(dir: number): FolderLookup | undefined {
    const l = this.folders.get(dir);
    if (l) this.folders.touch(dir);
    return l;
  }

  /** Whether `name` can be looked up in a FolderLookup's byName (its bytes are its UTF-8). */
  static mappable(name: string): boolean {
    return !LONE_SURROGATE.test(name);
  }

  /** Makes the lookup of `dir` from its children in sibling order (`names[i]` the name of `ids[i]`). */
  make(dir: number, ids: readonly number[], nameOf: (id: number) => string): FolderLookup | undefined {
    this.drop(dir);
    if (ids.length > MAX_MAPPED) return undefined;
    const byName = new Map<string, number>();
    const prev = new Map<number, number>();
    for (let i = 0; i < ids.length; i++) {
      byName.set(nameOf(ids[i]), ids[i]);
      prev.set(ids[i], i ? ids[i - 1] : -1);
    }
    const l = { byName, prev };
    this.folders.set(dir, l);
    this.mapped += ids.length;
    for (const [oldest] of this.folders) {
      if (this.mapped <= MAX_MAPPED || oldest === dir) break;
      this.drop(oldest);
    }
    return l;
  }

  /** `id` linked after `last` (-1: first) in `dir`. */
  added(dir: number, id: number, last: number, nameOf: (id: number) => string): void {
    const l = this.folders.get(dir);
    if (!l) return;
    l.byName.set(nameOf(id), id);
    l.prev.set(id, last);
    this.mapped++;
  }

  /** `id` (named `name`) unlinked from `dir`, `next` (or -1) now after its previous sibling. */
  removed(l: FolderLookup, id: number, name: string, next: number): void {
    const before = l.prev.get(id) ?? -1;
    if (l.byName.get(name) === id) l.byName.delete(name);
    l.prev.delete(id);
    if (next !== -1) l.prev.set(next, before);
    this.mapped--;
  }

  /** `dir`'s children (the same ones) linked again in the order `ordered`. */
  reordered(dir: number, ordered: ArrayLike<number>): void {
    const l = this.folders.get(dir);
    if (!l) return;
    l.prev.clear();
    for (let i = 0; i < ordered.length; i++) l.prev.set(ordered[i], i ? ordered[i - 1] : -1);
  }

  /** Forgets the lookup of `dir` (its children were put in another order, or it was removed). */
  drop(dir: number): void {
    const l = this.folders.get(dir);
    if (!l) return;
    this.mapped -= l.prev.size;
    this.folders.delete(dir);
  }
}
