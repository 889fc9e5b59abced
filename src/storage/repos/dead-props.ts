/**
 * WebDAV dead properties (PROPPATCH): per file, keyed by the file's absolute path, each value
 * a map of `{namespace}name` to the property's inner XML. The keys that have properties are
 * also kept in memory, so that the file events (every delete and move in fm, services/dav)
 * find the few affected records without reading the database.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../db.ts';

/** `{ns}name` → inner XML. */
export type DeadProps = Record<string, string>;

/**
 * Paths longer than this are stored under a digest (a PostgreSQL index entry holds ~2.7 KB, and
 * a path may be 4 KB), with the path itself in the record; no path starts with "#".
 */
const MAX_KEY_BYTES = 1024;
/** Where a record stored under a digest keeps its path (no property key starts with NUL). */
const PATH_FIELD = '\0path';

function storageKey(abs: string): string {
  return Buffer.byteLength(abs) <= MAX_KEY_BYTES ? abs : `#${createHash('sha256').update(abs).digest('hex')}`;
}

export class DeadPropsRepo {
  private keys: Set<string> | undefined;

  constructor(private readonly db: Database) {}

  private async loadKeys(): Promise<Set<string>> {
    this.keys ??= new Set((await this.db.entries<DeadProps>('davprops')).map(([k, v]) => v[PATH_FIELD] ?? k));
    return this.keys;
  }

  async get(abs: string): Promise<DeadProps> {
    if (!(await this.loadKeys()).has(abs)) return {};
    const { [PATH_FIELD]: _, ...props } = ((await this.db.ns('davprops').get(storageKey(abs))) as DeadProps | undefined) ?? {};
    return props;
  }

  /** Replaces the properties of a file (none: the record goes). */
  async set(abs: string, props: DeadProps): Promise<void> {
    const keys = await this.loadKeys();
    if (Object.keys(props).length === 0) {
      if (keys.delete(abs)) await this.db.ns('davprops').delete(storageKey(abs));
      return;
    }
    const key = storageKey(abs);
    await this.db.ns('davprops').set(key, key === abs ? props : { ...props, [PATH_FIELD]: abs });
    keys.add(abs);
  }

  /** The paths at or below `abs` that have properties. */
  async under(abs: string): Promise<string[]> {
    return [...(await this.loadKeys())].filter((k) => k === abs || k.startsWith(abs === '/' ? '/' : `${abs}/`));
  }

  /** Drops the properties of `abs` and everything below it. */
  async removeUnder(abs: string): Promise<void> {
    for (const k of await this.under(abs)) await this.set(k, {});
  }

  /** Moves (or copies) the properties of `from` and everything below it to `to`. */
  async moveUnder(from: string, to: string, copy = false): Promise<void> {
    const found = await this.under(from);
    const values = await Promise.all(found.map((k) => this.get(k)));
    // What is replaced loses its own properties, even when the newcomer has none.
    await this.set(to, {});
    if (!copy) for (const k of found) await this.set(k, {});
    for (let i = 0; i < found.length; i++) await this.set(to + found[i].slice(from.length), values[i]);
  }
}
