/**
 * What an upload's acknowledged offset rests on. Bytes that write(2) returned stay in the
 * kernel's page cache when fm is killed, so within one boot of the machine the part file's size
 * is the offset. Only a power loss or a kernel crash can lose them; against those, the part is
 * fdatasynced every `every` bytes and before the last byte is acknowledged, and the record names
 * the offset reached by the last fdatasync and the boot it happened in. A part found under
 * another boot is cut back to that offset: above it the bytes may never have reached the disk.
 * Pure decisions here; the files are read and written by staging.ts and service.ts.
 * See docs/decisions.md, "Performance: tus uploads, durable offsets".
 */

/** The last fdatasync of an upload's part file, as recorded beside it. */
export interface SyncedOffset {
  /** The kernel's boot id (/proc/sys/kernel/random/boot_id) when the bytes were written. */
  boot: string;
  /** The writing machine's name, for the log only: the boot id alone tells page caches apart. */
  host: string;
  /** Bytes of the part known to be on disk. */
  offset: number;
}

/** How this instance makes acknowledged bytes durable. */
export interface SyncMode {
  /** This kernel's boot id; undefined where there is none. */
  boot?: string;
  host: string;
  /**
   * Bytes written between fdatasyncs; 0 fdatasyncs before every acknowledgement (no boot id, or
   * a staging folder that other machines may write: a network file system).
   */
  every: number;
}

/** fdatasync the part every this many bytes when the page cache can be trusted between syncs. */
export const SYNC_EVERY = 64 * 1024 * 1024;

/**
 * What to do with an upload before it is reported or appended to: the bytes to keep, and the
 * record to write (undefined: leave it; null: write it without `synced`, after an fdatasync of
 * the part, meaning every byte of the part is durable).
 */
export interface Trusted {
  keep: number;
  record?: SyncedOffset | null;
}

/**
 * Decides which bytes of a part of `size` bytes can be trusted, given its record's `synced`
 * (anything read from the file: a damaged value counts as nothing synced, on no known boot).
 * A record without `synced` was written with an fdatasync before every acknowledgement (an
 * older fm, or an instance in that mode): its size is durable.
 */
export function trustedOffset(synced: unknown, size: number, mode: SyncMode): Trusted {
  const last = synced === undefined ? undefined : (asSynced(synced) ?? { boot: '', host: '', offset: 0 });
  const sameBoot = last !== undefined && mode.boot !== undefined && last.boot === mode.boot;
  const keep = last === undefined || sameBoot ? size : Math.min(size, last.offset);
  if (mode.every === 0 || mode.boot === undefined) return last === undefined ? { keep } : { keep, record: null };
  if (sameBoot) return { keep };
  return { keep, record: { boot: mode.boot, host: mode.host, offset: keep } };
}

/** A recorded fdatasync, or undefined when the value is not one. */
function asSynced(v: unknown): SyncedOffset | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { boot, host, offset } = v as Record<string, unknown>;
  if (typeof boot !== 'string' || !Number.isSafeInteger(offset) || (offset as number) < 0) return undefined;
  return { boot, host: typeof host === 'string' ? host : '', offset: offset as number };
}

/** The offset known to be durable for a part of `size` bytes whose record is `synced` (after `trustedOffset`). */
export function durableOffset(synced: SyncedOffset | undefined, size: number, mode: SyncMode): number {
  if (mode.every === 0 || synced === undefined) return size;
  return Math.min(size, synced.offset);
}
