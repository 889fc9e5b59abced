/**
 * A Map kept in least-recently-used-first order (its insertion order), for the bounded memos of
 * the listing path (`files/folder-names.ts`, `files/listing-memo.ts`, `files/disk/folder-watch.ts`).
 * `touch` moves a key to the newest end with a delete and a set, as those memos did by hand, but
 * skips both when the key is the newest already: each delete and set on a small Map makes V8
 * replace its table, and a hit on the same folder thousands of times a second did that on every
 * request (docs/decisions.md, "Performance: tail latency and start-up margin").
 */
export class UseOrderMap<K, V> extends Map<K, V> {
  #newest: K | undefined;
  #hasNewest = false;

  // biome-ignore lint/complexity/noUselessConstructor: it takes no entries, which Map's constructor would pass to `set` before the fields above exist
  constructor() {
    super();
  }

  /** Marks `key` as the most recently used (a key not present is left out). */
  touch(key: K): void {
    if ((this.#hasNewest && this.#newest === key) || !super.has(key)) return;
    const value = super.get(key) as V;
    super.delete(key);
    super.set(key, value);
    this.#newest = key;
    this.#hasNewest = true;
  }

  override set(key: K, value: V): this {
    // A new key goes to the newest end; a present one keeps its place (Map's own rule).
    if (!super.has(key)) {
      this.#newest = key;
      this.#hasNewest = true;
    }
    return super.set(key, value);
  }

  override delete(key: K): boolean {
    if (this.#hasNewest && this.#newest === key) {
      this.#newest = undefined;
      this.#hasNewest = false;
    }
    return super.delete(key);
  }

  override clear(): void {
    this.#newest = undefined;
    this.#hasNewest = false;
    super.clear();
  }
}
