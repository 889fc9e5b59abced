/**
 * WebDAV dead properties (PROPPATCH): per file, keyed by the file's absolute path, each value
 * a map of `{namespace}name` to the property's inner XML. The keys that have properties are
 * also kept in memory, so that the file events (every delete and move in fm, services/dav)
 * find the few affected records without reading the database.
 */
import type { Database } from '../db.ts';

/** `{ns}name` → inner XML. */
export type DeadProps = Record<string, string>;

export class DeadPropsRepo {
  private keys: Set<string> | undefined;

  constructor(private readonly db: Database) {}

  private async loadKeys(): Promise<Set<string>> {
    this.keys ??= new Set((await this.db.entries<DeadProps>('davprops')).map(([k]) => k));
    return this.keys;
  }

  async get(abs: string): Promise<DeadProps> {
    if (!(await this.loadKeys()).has(abs)) return {};
    return ((await this.db.ns('davprops').get(abs)) as DeadProps | undefined) ?? {};
  }

  /** Replaces the properties of a file (none: the record goes). */
  async set(abs: string, props: DeadProps): Promise<void> {
    const keys = await this.loadKeys();
    if (Object.keys(props).length === 0) {
      if (keys.delete(abs)) await this.db.ns('davprops').delete(abs);
      return;
    }
    await this.db.ns('davprops').set(abs, props);
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
