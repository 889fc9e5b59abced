/**
 * Live listings: who watches which folder. Subscriptions are keyed by the folder's real path;
 * fm's own file events and the index's watcher (other processes) report changed paths, and each
 * subscriber of the path's parent folder hears the name. A subscriber decides what to show
 * (folder-stream.ts). Connections are bounded per user.
 */
import path from 'node:path';
import { TooManyRequestsError } from '../../errors.ts';
import type { FileEvents } from '../events.ts';
import type { WatchFolderEntries } from '../files/disk/folder-entries-watch.ts';

/** What a subscriber of a folder hears. */
export interface LiveSink {
  /** An entry directly in the folder was created, changed or removed. */
  changed(name: string): void;
  /** Anything may have changed (a name the watcher could not read exactly, the folder itself moved). */
  reset(): void;
}

/** Open live streams per user: one per tab is the rule, a few tabs each on a folder the bound. */
export const MAX_STREAMS_PER_USER = 16;

export class LiveFolders {
  private readonly byFolder = new Map<string, Set<LiveSink>>();
  private readonly perUser = new Map<number, number>();
  /** How to end each open stream (shutdown). */
  private readonly enders = new Set<{ end: () => void }>();
  /** Set without the index: each followed folder is watched here (closers by folder). */
  private watchFolder?: WatchFolderEntries;
  private readonly folderWatches = new Map<string, () => void>();

  constructor(private readonly maxPerUser = MAX_STREAMS_PER_USER) {}

  /** fm's own writes, removals and moves. */
  attach(events: FileEvents): void {
    events.on('written', (e) => this.pathChanged(e.abs));
    events.on('removed', (e) => this.pathRemoved(e.abs));
    events.on('moved', (e) => {
      this.pathRemoved(e.fromAbs);
      this.pathChanged(e.toAbs);
    });
  }

  /**
   * Without the index nothing reports other processes' changes: from now on each followed folder
   * is watched on its own while anyone follows it (a folder that cannot be watched hears fm's
   * own changes only).
   */
  watchFoldersWith(watch: WatchFolderEntries): void {
    this.watchFolder = watch;
  }

  /**
   * A change the index's watcher saw (another process, or fm itself once more). `lossy`: the
   * watcher's path may not spell the name exactly (not UTF-8), so its folder is refetched.
   */
  diskChanged(abs: string, type: 'create' | 'update' | 'delete', lossy: boolean): void {
    if (!this.byFolder.size) return;
    if (lossy) {
      for (const sink of this.byFolder.get(path.dirname(abs)) ?? []) sink.reset();
      return;
    }
    if (type === 'delete') this.pathRemoved(abs);
    else this.pathChanged(abs);
  }

  /**
   * Starts hearing about `folderReal`; returns the unsubscribe. Throws 429 past the user's bound.
   * `end` closes the stream (at shutdown, which must not wait for streams that never end).
   */
  subscribe(userId: number, folderReal: string, sink: LiveSink, end: () => void): () => void {
    const open = this.perUser.get(userId) ?? 0;
    if (open >= this.maxPerUser) throw new TooManyRequestsError(5, `at most ${this.maxPerUser} live listings per user`);
    this.perUser.set(userId, open + 1);
    const sinks = this.byFolder.get(folderReal) ?? new Set<LiveSink>();
    if (!sinks.size) this.startWatching(folderReal);
    this.byFolder.set(folderReal, sinks);
    sinks.add(sink);
    const ender = { end };
    this.enders.add(ender);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.enders.delete(ender);
      sinks.delete(sink);
      if (!sinks.size) {
        this.byFolder.delete(folderReal);
        this.folderWatches.get(folderReal)?.();
        this.folderWatches.delete(folderReal);
      }
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Ends every open stream (the server is closing). */
  endAll(): void {
    for (const { end } of [...this.enders]) end();
  }

  /** Open subscriptions (tests, status). */
  get size(): number {
    let n = 0;
    for (const sinks of this.byFolder.values()) n += sinks.size;
    return n;
  }

  private startWatching(folderReal: string): void {
    const close = this.watchFolder?.(folderReal, (name) => {
      if (name !== null) this.pathChanged(path.join(folderReal, name));
      else for (const sink of this.byFolder.get(folderReal) ?? []) sink.reset();
    });
    if (close) this.folderWatches.set(folderReal, close);
  }

  private pathChanged(abs: string): void {
    const sinks = this.byFolder.get(path.dirname(abs));
    if (!sinks) return;
    const name = path.basename(abs);
    for (const sink of sinks) sink.changed(name);
  }

  /** The entry is gone from its folder, and any watched folder at or under it is gone too. */
  private pathRemoved(abs: string): void {
    this.pathChanged(abs);
    const under = `${abs}/`;
    for (const [folder, sinks] of this.byFolder) {
      if (folder === abs || folder.startsWith(under)) for (const sink of sinks) sink.reset();
    }
  }
}
