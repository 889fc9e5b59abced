/**
 * The read memo: reads of the namespaces read on every request (settings, users, sessions) kept
 * in memory between changes. Writes through this process clear it; the database clears it for
 * changes made elsewhere (SQLite's data_version, PostgreSQL's announcements).
 */
import type Keyv from 'keyv';
import type { Namespace } from './db.ts';

const memos = new WeakMap<Keyv, ReadMemo>();

/** The memo a namespace's reads go through, if any (for repositories that keep a value derived from a read). */
export function memoOf(kv: Keyv): ReadMemo | undefined {
  return memos.get(kv);
}

/** Namespaces whose reads are memoised between database changes (read on every request). */
export const MEMO_NAMESPACES = new Set<Namespace>(['settings', 'users', 'sessions']);

/**
 * Memoised reads of a few hot namespaces. Any write through this process clears the memo; a
 * read that raced a write is not stored (generation check). Values are cloned on the way out
 * so callers can never mutate the cache.
 */
export class ReadMemo {
  private readonly values = new Map<string, unknown>();
  private gen = 0;

  /** Changes whenever the memoised records may have changed: a value derived from a read stays valid while it does not. */
  get generation(): number {
    return this.gen;
  }

  clear(): void {
    this.values.clear();
    this.gen++;
  }

  async read<T>(key: string, load: () => Promise<T>): Promise<T> {
    if (this.values.has(key)) return structuredClone(this.values.get(key) as T);
    const gen = this.gen;
    const value = await load();
    if (gen === this.gen) {
      if (this.values.size >= 10_000) this.values.clear();
      this.values.set(key, value);
    }
    return structuredClone(value);
  }

  /** Routes a Keyv's reads through the memo and makes its writes clear it. */
  wrap(name: Namespace, kv: Keyv): void {
    memos.set(kv, this);
    // Keyv's methods are generic overloads; these wrappers keep their runtime contract.
    const target = kv as unknown as Record<'get' | 'set' | 'delete' | 'clear', (...args: unknown[]) => Promise<unknown>>;
    const get = target.get.bind(kv);
    target.get = (key: unknown, ...rest: unknown[]) =>
      typeof key === 'string' && rest.length === 0 ? this.read(`${name}\0${key}`, () => get(key)) : get(key, ...rest);
    for (const method of ['set', 'delete', 'clear'] as const) {
      const original = target[method].bind(kv);
      target[method] = async (...args: unknown[]) => {
        this.clear();
        try {
          return await original(...args);
        } finally {
          this.clear();
        }
      };
    }
  }
}
