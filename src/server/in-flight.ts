/**
 * The responses in flight, which the shutdown marks `Connection: close` (start.ts). Kept in the
 * slots of an array rather than a Set: a Set that gains and loses one response per request kept
 * finished requests alive through young-generation collections (an obsolete hash table still
 * pointing at them, as far as measured), so under load every scavenge promoted ~1.4 MB of dead
 * requests and a mark-compact followed every second; with slots, a finished request leaves no
 * reference behind (docs/decisions.md, "Performance: tail latency and start-up margin").
 */
export class InFlight<T extends object> {
  readonly #slots: Array<T | undefined> = [];
  readonly #free: number[] = [];

  /** Holds `item` until `release(slot)`; answers its slot. */
  hold(item: T): number {
    const slot = this.#free.pop() ?? this.#slots.length;
    this.#slots[slot] = item;
    return slot;
  }

  release(slot: number): void {
    if (this.#slots[slot] === undefined) return;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
  }

  /** Every item held now. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (const item of this.#slots) if (item !== undefined) yield item;
  }

  get size(): number {
    return this.#slots.length - this.#free.length;
  }
}
