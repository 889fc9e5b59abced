/**
 * The trash on disk, freedesktop-style: per file system and per user, `<top>/.fm-trash/<user id>/`
 * holds `files/<id>` (the item itself, moved there by one rename) and `info/<id>.json` (its
 * record). The record is written and fsynced before the rename, so a crash leaves the item
 * either in place (a record without an item, dropped by `reconcile`) or in the trash.
 * A move into the trash is rename(2) only: across file systems it fails (EXDEV), it never copies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConflictError, NotFoundError } from '../../../errors.ts';
import { DirHandle, isInside, type Scope } from './handle.ts';
import { decodeName } from './names.ts';
import { removeEntry } from './tree.ts';
import type { Stats } from './types.ts';

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY } = fs.constants;

/** The trash folder's name at the top of each file system inside the served root. */
export const TRASH_DIR = '.fm-trash';
/** Prefix of items being purged: renamed first, so a crash mid-removal never leaves half an item listed. */
const PURGING = '.purge-';
/** Records larger than this are not fm's (a name is at most 255 bytes, a path some KiB). */
const MAX_RECORD = 64 * 1024;

/** What the trash knows of an item (info/<id>.json). */
export interface TrashRecord {
  /** The item's name when deleted (byte-exact string form). */
  name: string;
  /** Its path inside the owner's scope when deleted ('' when unknown: an item without a record). */
  path: string;
  /** When it was deleted (ms since the epoch). */
  deleted: number;
  /** Bytes (a folder: everything in it). */
  size: number;
  isDir: boolean;
  /** A folder's entries (files, folders and links below it), for file-count quotas; absent in older records. */
  entries?: number;
}

/** One user's trash on one file system: its two folders, open. */
export interface Bin {
  files: DirHandle;
  info: DirHandle;
  close(): Promise<void>;
}

/** A scope that reaches only the trash folder under `top` (and `top` itself, to create it). */
function binScope(top: string): Scope {
  const trash = path.join(top, TRASH_DIR);
  return { rootReal: top, permits: (real) => isInside(trash, real) };
}

/** Opens (with `create`, making) the bin of `userId` under `top`; undefined when it does not exist. */
export async function openBin(top: string, userId: number, create: boolean): Promise<Bin | undefined> {
  const scope = binScope(top);
  const opened: DirHandle[] = [];
  const step = async (dir: DirHandle, name: string) => {
    const next = create ? await dir.ensureChild(name, 0o700) : await dir.child(name);
    opened.push(next);
    return next;
  };
  try {
    const topDir = await DirHandle.open(top, scope);
    opened.push(topDir);
    const user = await step(await step(topDir, TRASH_DIR), String(userId));
    const files = await step(user, 'files');
    const info = await step(user, 'info');
    for (const d of opened.slice(0, -2)) await d.close();
    return { files, info, close: async () => void (await Promise.all([files.close(), info.close()])) };
  } catch (err) {
    for (const d of opened) await d.close();
    if (!create && isMissing(err)) return undefined;
    throw err;
  }
}

/** User ids that have a bin under `top`. */
export async function binOwners(top: string): Promise<number[]> {
  const trash = path.join(top, TRASH_DIR);
  let dir: DirHandle;
  try {
    dir = await DirHandle.open(trash, binScope(top));
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  try {
    return (await dir.entries())
      .map((e) => e.name)
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } finally {
    await dir.close();
  }
}

function isMissing(err: unknown): boolean {
  return err instanceof NotFoundError || (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Writes the record of `id` durably (file and folder fsynced); never replaces one. */
export async function writeRecord(bin: Bin, id: string, record: TrashRecord): Promise<void> {
  const fh = await bin.info.openFile(`${id}.json`, O_CREAT | O_EXCL | O_WRONLY, 0o600);
  try {
    await fh.writeFile(JSON.stringify(record));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await bin.info.sync();
}

/** The record of `id`; undefined when missing or unreadable (not fm's). */
export async function readRecord(bin: Bin, id: string): Promise<TrashRecord | undefined> {
  let fh: Awaited<ReturnType<DirHandle['openFile']>>;
  try {
    fh = await bin.info.openFile(`${id}.json`, O_RDONLY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  try {
    if ((await fh.stat()).size > MAX_RECORD) return undefined;
    const r = JSON.parse(await fh.readFile('utf8')) as Partial<TrashRecord>;
    if (typeof r.name !== 'string' || typeof r.path !== 'string' || typeof r.deleted !== 'number') return undefined;
    const entries = Number.isSafeInteger(r.entries) && Number(r.entries) >= 0 ? Number(r.entries) : undefined;
    return { name: r.name, path: r.path, deleted: r.deleted, size: Number(r.size) || 0, isDir: Boolean(r.isDir), ...(entries !== undefined && { entries }) };
  } catch {
    return undefined;
  } finally {
    await fh.close();
  }
}

/** Moves `name` of `from` into the bin as `id` (one rename; EXDEV is an error, never a copy). */
export async function moveIn(from: DirHandle, name: string, bin: Bin, id: string): Promise<void> {
  try {
    await from.rename(name, bin.files, id);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EXDEV') throw new ConflictError('the trash is on another file system: not moved');
    throw err;
  }
  await bin.files.sync();
  await from.sync().catch(() => {});
}

/** Lists a bin after reconciling it: records without an item are dropped, half-purged items removed. */
export async function reconcile(bin: Bin): Promise<Array<{ id: string; record?: TrashRecord; lstat: Stats }>> {
  const items = new Map<string, Stats>();
  for (const e of await bin.files.entries()) {
    if (e.name.startsWith(PURGING)) {
      await removeEntry(bin.files, e.name);
      continue;
    }
    const st = await bin.files.lstatOrMissing(e.name);
    if (st) items.set(e.name, st);
  }
  const out: Array<{ id: string; record?: TrashRecord; lstat: Stats }> = [];
  const recorded = new Set<string>();
  for (const e of await bin.info.entries()) {
    if (!e.name.endsWith('.json')) continue;
    const id = e.name.slice(0, -'.json'.length);
    const st = items.get(id);
    if (!st) {
      await bin.info.unlink(e.name).catch(() => {});
      continue;
    }
    recorded.add(id);
    out.push({ id, record: await readRecord(bin, id), lstat: st });
  }
  for (const [id, st] of items) if (!recorded.has(id)) out.push({ id, lstat: st });
  return out;
}

/** Removes an item for good: renamed aside first, then its record, then the tree. */
export async function purge(bin: Bin, id: string): Promise<void> {
  const aside = `${PURGING}${id}`;
  try {
    await bin.files.rename(id, bin.files, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await bin.info.unlink(`${id}.json`).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
  await removeEntry(bin.files, aside);
}

/**
 * Mount points strictly inside `root` (Linux: /proc/self/mountinfo), where an item deleted
 * from another file system gets its own trash. Empty elsewhere.
 */
export function mountsInside(root: string): string[] {
  let text: string;
  try {
    // latin1: one character per byte, so names that are not UTF-8 come through intact.
    text = fs.readFileSync('/proc/self/mountinfo', 'latin1');
  } catch {
    return [];
  }
  const out = new Set<string>();
  for (const line of text.split('\n')) {
    const field = line.split(' ')[4];
    if (!field) continue;
    // Octal escapes (\040 for a space) as bytes, then fm's byte-exact string form.
    const bytes: number[] = [];
    for (let i = 0; i < field.length; i++) {
      const m = /^\\([0-7]{3})/.exec(field.slice(i));
      if (m) {
        bytes.push(Number.parseInt(m[1], 8));
        i += 3;
      } else bytes.push(field.charCodeAt(i));
    }
    const mount = decodeName(Uint8Array.from(bytes));
    if (mount !== root && isInside(root, mount)) out.add(mount);
  }
  return [...out];
}
