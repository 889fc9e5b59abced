/**
 * A recursive watcher of a folder tree, one `fs.watch` per folder (libuv keeps one inotify
 * instance per process and one watch per folder). The caller names the folders it has found
 * (`watch`, called by the index's scan just before it reads each folder, so a change after the
 * read arrives as an event). A folder that appears later inside a watched folder is watched here
 * with every folder below it, then reported once, as created: what is already inside is for the
 * caller to read (the watches exist by then, so nothing is missed in between), not reported
 * entry by entry, which for a large folder moved in would cost a lookup per entry.
 * Names arrive as bytes and are decoded exactly (names.ts). Events are coalesced per path and
 * checked against the disk once per turn of the event loop. When a watch cannot be added (out
 * of inotify watches, ENOSPC; out of descriptors, EMFILE) every watch is dropped and `onError`
 * is told, once: the caller then reconciles by polling.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeName, osPath } from './names.ts';

export type TreeEventType = 'create' | 'update' | 'delete';
export interface TreeEvent {
  /** Absolute path in fm's string form. */
  path: string;
  type: TreeEventType;
}

/** fs.watch of one folder, names as bytes (tests inject failures through it). */
export type WatchFolder = (dir: string | Buffer, listener: (event: string, name: Buffer | null) => void) => fs.FSWatcher;

const watchFolderWithNode: WatchFolder = (dir, listener) => fs.watch(dir, { encoding: 'buffer', persistent: false }, listener);

export interface TreeWatcherOptions {
  onEvents: (events: TreeEvent[]) => void;
  /** Watching failed: every watch is closed; no more events come. */
  onError: (err: Error) => void;
  /** Paths never watched nor reported (fm's own files). */
  skip?: (abs: string) => boolean;
  watchFolder?: WatchFolder;
}

interface Watch {
  watcher: fs.FSWatcher;
  /** The folder's inode when the watch was added: a folder removed and made again is a new folder. */
  ino: number;
  /** Names of the watched sub-folders. */
  subs: Set<string>;
}

/** A folder that vanished or cannot be read is not a failure of watching: its parent reports it. */
const UNWATCHABLE = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

export class TreeWatcher {
  private readonly watches = new Map<string, Watch>();
  /** Paths heard since the last flush; true when only their content changed. */
  private pending = new Map<string, boolean>();
  private scheduled = false;
  private stopped = false;
  private readonly watchFolder: WatchFolder;

  constructor(private readonly opts: TreeWatcherOptions) {
    this.watchFolder = opts.watchFolder ?? watchFolderWithNode;
  }

  /** Watching every folder it was told of (false after a failure or `close`). */
  get active(): boolean {
    return !this.stopped;
  }

  get size(): number {
    return this.watches.size;
  }

  /** Watches one folder (its sub-folders are the caller's to name, or found when they appear). */
  watch(dir: string): void {
    if (this.stopped || this.watches.has(dir)) return;
    let watcher: fs.FSWatcher;
    let ino: number;
    try {
      const st = fs.lstatSync(osPath(dir), { throwIfNoEntry: false });
      if (!st?.isDirectory()) return;
      ino = st.ino;
      watcher = this.watchFolder(osPath(dir), (event, name) => this.heard(dir, event, name));
    } catch (err) {
      if (!UNWATCHABLE.has((err as NodeJS.ErrnoException).code ?? '')) this.fail(err as Error);
      return;
    }
    watcher.on('error', (err) => this.fail(err));
    this.watches.set(dir, { watcher, ino, subs: new Set() });
    this.watches.get(path.dirname(dir))?.subs.add(path.basename(dir));
  }

  close(): void {
    this.stopped = true;
    for (const w of this.watches.values()) w.watcher.close();
    this.watches.clear();
    this.pending.clear();
  }

  private fail(err: Error): void {
    if (this.stopped) return;
    this.close();
    this.opts.onError(err);
  }

  private heard(dir: string, event: string, name: Buffer | null): void {
    if (this.stopped) return;
    // No name: something in the folder changed, the folder itself is re-read.
    const abs = name ? path.join(dir, decodeName(name)) : dir;
    const contentOnly = event === 'change' && (this.pending.get(abs) ?? true);
    this.pending.set(abs, contentOnly);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.stopped) return;
    const heard = this.pending;
    this.pending = new Map();
    const events: TreeEvent[] = [];
    for (const [abs, contentOnly] of heard) {
      if (this.opts.skip?.(abs)) continue;
      this.check(abs, contentOnly, events);
    }
    if (events.length && !this.stopped) this.opts.onEvents(events);
  }

  /** What happened at `abs`, from the disk as it is now. */
  private check(abs: string, contentOnly: boolean, events: TreeEvent[]): void {
    const st = lstat(abs);
    const known = this.watches.get(abs);
    if (!st) {
      if (known) this.drop(abs);
      // A folder's own removal or move is heard inside it under its own name, and the entries of
      // a folder that went away are covered by the folder's removal, which its parent reports.
      if (!contentOnly && lstat(path.dirname(abs))?.isDirectory()) events.push({ path: abs, type: 'delete' });
      return;
    }
    if (st.isDirectory() && (!known || known.ino !== st.ino)) {
      if (known) {
        this.drop(abs);
        events.push({ path: abs, type: 'delete' });
      }
      events.push({ path: abs, type: 'create' });
      this.adopt(abs);
      return;
    }
    events.push({ path: abs, type: contentOnly || known ? 'update' : 'create' });
  }

  /** Watches a folder that appeared and every folder below it. */
  private adopt(dir: string): void {
    const stack = [dir];
    while (stack.length && !this.stopped) {
      const cur = stack.pop()!;
      this.watch(cur);
      let entries: fs.Dirent<Buffer>[];
      try {
        entries = fs.readdirSync(osPath(cur), { withFileTypes: true, encoding: 'buffer' });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        const abs = path.join(cur, decodeName(e.name));
        if (!this.opts.skip?.(abs)) stack.push(abs);
      }
    }
  }

  /** Stops watching a folder and every watched folder below it. */
  private drop(dir: string): void {
    this.watches.get(path.dirname(dir))?.subs.delete(path.basename(dir));
    const stack = [dir];
    while (stack.length) {
      const cur = stack.pop()!;
      const w = this.watches.get(cur);
      if (!w) continue;
      w.watcher.close();
      this.watches.delete(cur);
      for (const sub of w.subs) stack.push(path.join(cur, sub));
    }
  }
}

function lstat(abs: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(osPath(abs), { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
