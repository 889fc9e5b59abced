/**
 * The lstat results of recently listed folders' entries, kept while the kernel reports no change
 * in the folder: one `fs.watch` (inotify) per folder, at most MAX_FOLDERS folders, the least
 * recently listed one's watch closed first. An event naming an entry forgets that entry; one
 * naming none (or a name not given as bytes) forgets all of the folder's entries.
 *
 * Why an answer is never stale (docs/decisions.md, "Performance: listings, continued"): inotify
 * queues an event inside the system call that makes the change, before that call returns, so a
 * change made before a request was sent is queued before the request's bytes arrive. Events are
 * read when the event loop polls; a lookup first waits for one turn of the loop (setImmediate,
 * which runs after the poll phase that read the request), so every event queued before the
 * request has been delivered by then. Every change to an entry's own lstat (written, truncated,
 * chmod'ed, touched, created, removed, renamed over or away) queues an event carrying the
 * entry's name, so a folder under constant change still answers its other entries from what is
 * kept. Only entries whose own lstat cannot change without an
 * event here are kept: not folders (their mtime follows their own contents), not links (the
 * listing resolves them through the gate on every request), not files with several hard links
 * (a write through another folder's link is reported there). A folder that cannot be watched
 * (no inotify watch left, no descriptor, a file system where inotify misses changes made
 * elsewhere, such as network mounts) is listed with an lstat per entry, as before.
 *
 * The same watch keeps the names it sees change for folder-names.ts (`watchNames`), which patches
 * a large folder's remembered names with them instead of reading the folder again: the watch is
 * set before the read, so every entry added, removed or renamed after the read is named by an
 * event; such a name is lstat'ed again when the names are next used. An event naming nothing, too
 * many names, or the watch closed lose the names (the folder is read again).
 */
import fs from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type EntryPaths, KIND_DIR, KIND_FIFO, KIND_LINK, PARALLEL_MIN, RAW_MISSING, type RawStats, statAll } from './listing-worker.ts';
import { UseOrderMap } from '../../use-order-map.ts';
import { direntKind } from './dirents.ts';
import { decodeName, osPath } from './names.ts';
import type { Stats } from './types.ts';

/** fs.watch of one folder, names as bytes (tests inject failures through `watchFoldersWith`). */
export type WatchOne = (dir: string | Buffer, onChange: (event: string, name: Buffer | string | null) => void) => fs.FSWatcher;

const watchWithNode: WatchOne = (dir, onChange) => fs.watch(dir, { persistent: false, encoding: 'buffer' }, onChange);

/** Local file systems whose every change goes through this kernel (statfs f_type; also upload staging's durability). */
export const LOCAL_FS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xcafe4a11, // bcachefs
]);

/** One kept entry: [mode, size, mtimeMs] and its KIND_*. */
interface Known {
  mode: number;
  size: number;
  mtime: number;
  kind: number;
}

/**
 * The names a folder's watch saw change since `watchNames`; `lost` once an event named nothing,
 * too many names changed, or the watch closed.
 */
export interface NameWatch {
  dirty: Set<string>;
  lost: boolean;
}

/** An entry named by an event, as lstat finds it now: its DIRENT_* kind, or gone. */
export interface NameChange {
  name: string;
  kind: number | undefined;
}

/** More changed names than this since the last use: reading the folder again costs less than an lstat each. */
const MAX_DIRTY = 4096;

interface Watched {
  watcher: fs.FSWatcher;
  names?: NameWatch;
  dev: number;
  ino: number;
  ctimeMs: number;
  known: Map<string, Known>;
  /** When the oldest kept entry was taken (Date.now()); 0 while nothing is kept. */
  keptSince: number;
}

let maxFolders = 256;
/**
 * How long a kept entry is trusted at most, whatever the watch says: a bound on the two changes
 * no event reports (an in-place write through a hard link made after the entry was kept, and
 * events lost when inotify's queue overflows). Under load a folder is lstat'ed once per period.
 */
let maxAgeMs = 2000;
let now = Date.now;
/** Kept entries over all folders; a folder that would go beyond is not kept. */
let maxEntries = 100_000;
let watchOne = watchWithNode;
const watched = new UseOrderMap<string, Watched>();
const localDevices = new Map<number, boolean>();
let keptEntries = 0;

/** Limits and the watch function, for tests. */
export function watchFoldersWith(opts: { maxFolders?: number; maxEntries?: number; maxAgeMs?: number; now?: () => number; watch?: WatchOne }): void {
  closeAllFolderWatches();
  maxFolders = opts.maxFolders ?? 256;
  maxAgeMs = opts.maxAgeMs ?? 2000;
  now = opts.now ?? Date.now;
  maxEntries = opts.maxEntries ?? 100_000;
  watchOne = opts.watch ?? watchWithNode;
}

/** How many folders are watched now. */
export function watchedFolderCount(): number {
  return watched.size;
}

export function closeAllFolderWatches(): void {
  for (const [real, w] of watched) close(real, w);
}

/**
 * lstat the entries of the folder at `real` (whose stat the gate took), answering from the kept
 * entries where the folder's watch has seen no change. Large folders go to statAll as before.
 */
export async function statEntriesOf(entries: EntryPaths, real: string, folder: Stats | undefined): Promise<RawStats> {
  const n = entries.names.length;
  if (!folder || n >= PARALLEL_MIN) return statAll(entries);
  let w = watched.get(real);
  if (w && (w.dev !== folder.dev || w.ino !== folder.ino)) {
    close(real, w);
    w = undefined;
  }
  // A second line behind the events (lost when inotify's queue overflows): a folder whose entries were
  // added, removed or replaced has a new ctime.
  if (w && w.ctimeMs !== folder.ctimeMs) {
    forgetEntries(w);
    w.ctimeMs = folder.ctimeMs;
  }
  if (w?.known.size && now() - w.keptSince > maxAgeMs) forgetEntries(w);
  if (w?.known.size) {
    await nextTurn(); // every inotify event queued before this request is delivered by now
    if (watched.get(real) !== w) w = undefined; // closed meanwhile (error, eviction)
  }
  if (!w) w = startWatch(real, folder);
  if (!w) return statAll(entries);
  watched.touch(real); // most recently listed last
  return statThrough(w, entries);
}

/**
 * Starts keeping the names changed in the folder at `real` (whose stat the gate took), before
 * the caller reads it; undefined when the folder cannot be watched. One NameWatch per folder: a
 * new one loses the previous one.
 */
export function watchNames(real: string, folder: Stats): NameWatch | undefined {
  let w = watched.get(real);
  if (w && (w.dev !== folder.dev || w.ino !== folder.ino)) {
    close(real, w);
    w = undefined;
  }
  w ??= startWatch(real, folder);
  if (!w) return undefined;
  watched.touch(real);
  if (w.names) w.names.lost = true;
  w.names = { dirty: new Set(), lost: false };
  return w.names;
}

/** Stops keeping names for `names` (its folder's names are no longer remembered). */
export function stopWatchingNames(names: NameWatch): void {
  names.lost = true;
  names.dirty.clear();
}

/**
 * The entries of the folder at `real` changed since the last call, each lstat'ed now; undefined
 * when the names are lost. Waits two turns of the loop first, so that the loop has polled for
 * events after this call began, from whatever phase it is called (a setImmediate made in the poll
 * phase runs before the next poll): every event queued before the call, by a request's sender
 * or by fm itself, is delivered by then. The lstats that follow are synchronous, so a change
 * made after one is named by an event still queued, seen by the next call.
 */
export async function changedNames(names: NameWatch, real: string): Promise<NameChange[] | undefined> {
  await nextTurn();
  await nextTurn();
  if (names.lost) return undefined;
  const changes: NameChange[] = [];
  const prefix = real.endsWith('/') ? real : `${real}/`;
  for (const name of names.dirty) {
    const st = fs.lstatSync(osPath(prefix + name), { throwIfNoEntry: false });
    changes.push({ name, kind: st && direntKind(st) });
  }
  names.dirty.clear();
  return changes;
}

function statThrough(w: Watched, entries: EntryPaths): RawStats {
  const { names, prefix, prefixBytes, nameBytes } = entries;
  const n = names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  const room = keptEntries + n <= maxEntries;
  for (let i = 0; i < n; i++) {
    const hit = w.known.get(names[i]);
    if (hit) {
      num[i * 3] = hit.mode;
      num[i * 3 + 1] = hit.size;
      num[i * 3 + 2] = hit.mtime;
      kind[i] = hit.kind;
      continue;
    }
    const raw = nameBytes?.[i];
    const p = raw || prefixBytes ? Buffer.concat([prefixBytes ?? Buffer.from(prefix), raw ?? Buffer.from(names[i])]) : prefix + names[i];
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) {
      kind[i] = RAW_MISSING;
      continue;
    }
    const k = st.isSymbolicLink() ? KIND_LINK : st.isDirectory() ? KIND_DIR : st.isFIFO() ? KIND_FIFO : 0;
    num[i * 3] = st.mode;
    num[i * 3 + 1] = st.size;
    num[i * 3 + 2] = st.mtimeMs;
    kind[i] = k;
    // Synchronous since the loop turn: an event for this entry, if any, is still queued and
    // forgets it before the next lookup.
    if (room && k !== KIND_LINK && k !== KIND_DIR && st.nlink === 1) {
      if (!w.known.size) w.keptSince = now();
      w.known.set(names[i], { mode: st.mode, size: st.size, mtime: st.mtimeMs, kind: k });
      keptEntries++;
    }
  }
  return { num, kind };
}

function startWatch(real: string, folder: Stats): Watched | undefined {
  if (!isLocal(real, folder.dev)) return undefined;
  let w: Watched | undefined; // set below, before any event can be delivered
  let watcher: fs.FSWatcher;
  try {
    watcher = watchOne(osPath(real), (_event, name) => w && forgetNamed(w, name));
  } catch {
    return undefined; // ENOSPC, EMFILE, gone: listed without keeping anything
  }
  const started: Watched = { watcher, dev: folder.dev, ino: folder.ino, ctimeMs: folder.ctimeMs, known: new Map(), keptSince: 0 };
  w = started;
  watcher.on('error', () => close(real, started));
  watched.set(real, started);
  for (const [oldest, o] of watched) {
    if (watched.size <= maxFolders) break;
    close(oldest, o);
  }
  return started;
}

/**
 * The entry an event names, decoded exactly as the listing's names are (names.ts); all of them
 * when the event names none, or a name as a string, which may not spell a name that is not UTF-8.
 */
function forgetNamed(w: Watched, name: Buffer | string | null): void {
  if (!Buffer.isBuffer(name)) {
    forgetEntries(w);
    loseNames(w);
    return;
  }
  const decoded = decodeName(name);
  if (w.known.delete(decoded)) keptEntries--;
  if (w.names && !w.names.lost) {
    w.names.dirty.add(decoded);
    if (w.names.dirty.size > MAX_DIRTY) loseNames(w);
  }
}

function loseNames(w: Watched): void {
  if (w.names) stopWatchingNames(w.names);
  w.names = undefined;
}

function forgetEntries(w: Watched): void {
  keptEntries -= w.known.size;
  w.known.clear();
}

function close(real: string, w: Watched): void {
  forgetEntries(w);
  loseNames(w);
  if (watched.get(real) === w) watched.delete(real);
  w.watcher.close();
}

function isLocal(real: string, dev: number): boolean {
  let local = localDevices.get(dev);
  if (local === undefined) {
    try {
      local = LOCAL_FS.has(fs.statfsSync(osPath(real)).type);
    } catch {
      return false;
    }
    localDevices.set(dev, local);
  }
  return local;
}
