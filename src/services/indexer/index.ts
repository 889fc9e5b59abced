/**
 * The live search index: every entry under the server root with name, size, mtime, type and
 * kind, persisted across restarts, reconciled at start-up by folder mtimes, kept fresh by a
 * recursive watcher (or periodic reconciliation when watching is impossible) and by fm's own
 * file events. Queries use a trigram index over lower-cased names.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { Logger } from '../context.ts';
import { EntryStore, type FolderStat, type IndexedType, type ListedCounts, ROOT_ID } from './store.ts';
import { type PostingCursor, TrigramIndex } from './trigrams.ts';
import { namedFilter } from './match.ts';
import { loadSnapshot, saveSnapshot } from './persist.ts';
import { compactionDue, compactStore } from './compact.ts';
import { reconcileDir, removePath, scanTree, upsertPath, type ScanContext } from './scanner.ts';
import { TreeWatcher, type TreeEvent, type WatchFolder } from '../files/disk/tree-watcher.ts';
import { startTreeScan, type StartTreeScan } from '../files/disk/tree-scan.ts';
import { hasEscapes } from '../files/disk/names.ts';
import { buildInWorker } from './build.ts';
import { relistFolder, relistLarge } from './relist.ts';
import { SearchActivity, type SearchActivityOptions } from './search-activity.ts';

/** Candidate ids read and checked per step of a query. */
const BLOCK = 1024;

/** Keeps the live entries of `ids[0 .. n)` at its front, in order; returns how many. */
function keepLive(store: EntryStore, ids: Int32Array, n: number): number {
  let k = 0;
  for (let i = 0; i < n; i++) if (!store.isDead(ids[i])) ids[k++] = ids[i];
  return k;
}

export interface IndexStatus {
  ready: boolean;
  scanning: boolean;
  entries: number;
  /** How file-system changes reach the index: "watcher", "polling" or "none" (not started). */
  watching: 'watcher' | 'polling' | 'none';
  lastReconcile: string | null;
  /** Duration of the last full scan or reconciliation, in ms. */
  lastScanMs: number | null;
  trigrams: number;
}

export interface IndexedEntry {
  name: string;
  size: number;
  mtimeMs: number;
  isDir: boolean;
  type: IndexedType;
}

export interface IndexHit {
  /** Path relative to the searched folder, without a leading slash. */
  rel: string;
  isDir: boolean;
  isLink: boolean;
  size: number;
  mtimeMs: number;
}

export interface IndexOptions {
  /** Absolute real path of the server root. */
  root: string;
  /** Folder for the snapshot file. */
  dataDir: string;
  /** Never index these, each with everything below it (fm's own files): read at each use. */
  skipPaths: () => readonly string[];
  log: Logger;
  /** Watch the file system (default true). */
  watch?: boolean;
  /** Reconciliation period when not watching, ms (default 60 s). */
  pollIntervalMs?: number;
  /** Snapshot period while changes accumulate, ms (default 10 min). */
  saveIntervalMs?: number;
  /** Told of every change the watcher sees (live listings); `lossy` when the path may not spell a name exactly (never, since names arrive as bytes). */
  onDiskEvent?: (abs: string, type: 'create' | 'update' | 'delete', lossy: boolean) => void;
  /** How one folder is watched (tests inject failures). */
  watchFolder?: WatchFolder;
  /** Starts the full scan's worker threads (tests inject failures); false: scan on this thread. */
  scanWorker?: StartTreeScan | false;
  /** How long a listed folder's changes must have settled before it is put in order and marked again, ms (default 5 s). */
  relistAfterMs?: number;
  /** How long the snapshot waits for searches between its chunks (search-activity.ts; tests set it). */
  searchQuiet?: SearchActivityOptions;
}

export class SearchIndex {
  private store = new EntryStore();
  private trigrams = new TrigramIndex();
  private ready = false;
  /** start() was called (fm serve without --no-index). */
  started = false;
  private scanning = false;
  private watching: IndexStatus['watching'] = 'none';
  private lastReconcile: Date | null = null;
  private lastScanMs: number | null = null;
  private queue: Promise<void> = Promise.resolve();
  private dirty = false;
  private compactionQueued = false;
  private readonly abort = new AbortController();
  private watcher?: TreeWatcher;
  private timers: NodeJS.Timeout[] = [];
  /** Listed folders whose children changed, by id, each relisted once its changes settle (relist.ts). */
  private readonly relists = new Map<number, NodeJS.Timeout>();
  /** Searches in progress: the snapshot waits for them between its chunks (2 s in all at most). */
  private readonly searches: SearchActivity;
  readonly snapshotFile: string;

  constructor(private readonly opts: IndexOptions) {
    this.searches = new SearchActivity(opts.searchQuiet);
    const tag = crypto.createHash('sha1').update(opts.root).digest('hex').slice(0, 12);
    this.snapshotFile = path.join(opts.dataDir, `search-index-${tag}.bin`);
  }

  private readonly skip = (abs: string): boolean => {
    for (const p of this.opts.skipPaths()) if (abs === p || (abs.startsWith(p) && abs.charCodeAt(p.length) === 47)) return true;
    return false;
  };

  private ctx(): ScanContext {
    return {
      store: this.store,
      root: this.opts.root,
      skip: this.skip,
      signal: this.abort.signal,
      onAdd: (id, name) => {
        this.dirty = true;
        this.trigrams.add(id, name.toLowerCase());
        this.relistSoon(this.store.parentOf(id));
      },
      onRemove: (ids) => {
        this.dirty = true;
        if (ids.length) this.relistSoon(this.store.parentOf(ids[0]));
        this.compactIfDue();
      },
      onFolder: (abs) => this.watcher?.watch(abs),
    };
  }

  /**
   * A folder that was listed (store.ts `markListed`) lost its mark with this change: once no
   * change has come for `relistAfterMs`, it is put in name order and marked again (relist.ts).
   */
  private relistSoon(dir: number): void {
    if (!this.ready || !this.store.wasListed(dir)) return;
    clearTimeout(this.relists.get(dir));
    const store = this.store;
    const timer = setTimeout(() => {
      this.relists.delete(dir);
      void this.enqueue(async () => {
        if (this.store !== store || store.isDead(dir)) return;
        const abs = this.opts.root === '/' ? store.pathOf(dir) : this.opts.root + store.pathOf(dir);
        await relistFolder(store, dir, abs, this.skip);
      });
    }, this.opts.relistAfterMs ?? 5000);
    timer.unref();
    this.relists.set(dir, timer);
  }

  /** Runs mutations one at a time (scans, reconciliations, events). */
  private enqueue(fn: () => Promise<void> | void): Promise<void> {
    const next = this.queue.then(fn, fn).catch((err: Error) => {
      if (!this.abort.signal.aborted) this.opts.log.error(`search index: ${err.message}`);
    });
    this.queue = next;
    return next;
  }

  /**
   * Starts indexing in the background; resolves when the index is ready. The scan watches each
   * folder just before it reads it: a change made while the scan runs (in a folder it has
   * already read) arrives as an event, queued behind the scan and applied right after it, so
   * nothing made during start-up is missed.
   */
  start(): Promise<void> {
    this.started = true;
    return this.enqueue(async () => {
      const started = Date.now();
      this.startWatching();
      this.scanning = true;
      const loaded = loadSnapshot(this.snapshotFile, this.opts.root, (id, name) => {
        this.trigrams.add(id, name.toLowerCase());
      });
      const progress = setInterval(() => this.opts.log.info(`search index: ${this.store.live - 1} entries so far`), 2000);
      try {
        if (loaded) {
          this.store = loaded;
          this.opts.log.info(`search index: loaded ${loaded.live - 1} entries, reconciling`);
          await reconcileDir(this.ctx(), ROOT_ID, this.opts.root, true);
        } else {
          await this.fullScan();
        }
      } finally {
        clearInterval(progress);
        this.scanning = false;
      }
      this.trigrams.trim();
      this.lastScanMs = Date.now() - started;
      this.lastReconcile = new Date();
      this.ready = true;
      this.opts.log.info(`search index: ready, ${this.store.live - 1} entries in ${this.lastScanMs} ms`);
      // A loaded store has no folder marked listed (relist.ts): queued, so ready does not wait.
      if (loaded) void this.enqueue(() => relistLarge(this.store, this.opts.root, this.skip, this.abort.signal));
      await this.save();
      const saver = setInterval(() => void this.enqueue(() => this.save()), this.opts.saveIntervalMs ?? 600_000);
      saver.unref();
      this.timers.push(saver);
    });
  }

  /**
   * Builds the index from nothing: in the scan workers when there are (a root whose path needs
   * the byte-exact reading is scanned here), else, or when the worker fails, on this thread into
   * a fresh store (what the workers had sent is dropped).
   */
  private async fullScan(): Promise<void> {
    this.trigrams = new TrigramIndex();
    this.store = new EntryStore();
    this.dirty = true;
    const start = this.opts.scanWorker ?? startTreeScan;
    if (start && !hasEscapes(this.opts.root)) {
      try {
        const root = this.opts.root;
        this.watcher?.watch(root);
        const onFolder = (abs: string) => this.watcher?.watch(abs);
        const deferred = await buildInWorker(
          { store: this.store, trigrams: this.trigrams, root, skipPaths: this.opts.skipPaths(), onFolder, signal: this.abort.signal },
          start,
        );
        for (const id of deferred) await scanTree(this.ctx(), id, root === '/' ? this.store.pathOf(id) : root + this.store.pathOf(id));
        return;
      } catch (err) {
        if (this.abort.signal.aborted) throw err;
        this.opts.log.warn(`search index: the scan worker failed (${(err as Error).message}); scanning on the main thread`);
        this.trigrams = new TrigramIndex();
        this.store = new EntryStore();
      }
    }
    await scanTree(this.ctx(), ROOT_ID, this.opts.root);
  }

  private startWatching(): void {
    if (this.opts.watch === false) {
      this.startPolling();
      return;
    }
    this.watcher = new TreeWatcher({
      skip: this.skip,
      watchFolder: this.opts.watchFolder,
      onEvents: (events) => this.heard(events),
      onError: (err) => {
        this.opts.log.warn(`search index: cannot watch ${this.opts.root} (${err.message}); reconciling periodically`);
        this.watcher = undefined;
        this.startPolling();
      },
    });
    this.watching = 'watcher';
  }

  private heard(events: TreeEvent[]): void {
    for (const e of events) this.opts.onDiskEvent?.(e.path, e.type, false);
    void this.enqueue(async () => {
      const ctx = this.ctx();
      for (const e of events) {
        if (e.type === 'delete') removePath(ctx, e.path);
        else await upsertPath(ctx, e.path);
      }
    });
  }

  private startPolling(): void {
    this.watching = 'polling';
    const timer = setInterval(() => void this.reconcile(), this.opts.pollIntervalMs ?? 60_000);
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * Queues a rebuild without the removed entries once they outnumber the live ones. Readers
   * stay consistent: a query or the analyzer takes the store (and the trigram postings) once
   * and keeps those objects, which the rebuild only reads; the new pair is swapped in at once.
   */
  private compactIfDue(): void {
    if (!this.ready || this.compactionQueued || !compactionDue(this.store)) return;
    this.compactionQueued = true;
    void this.enqueue(async () => {
      try {
        const trigrams = new TrigramIndex();
        const store = await compactStore(this.store, (id, name) => trigrams.add(id, name.toLowerCase()), this.abort.signal);
        trigrams.trim();
        this.store = store;
        this.trigrams = trigrams;
      } finally {
        this.compactionQueued = false;
      }
    });
  }

  /** Re-checks every folder's mtime against the disk. */
  reconcile(): Promise<void> {
    return this.enqueue(async () => {
      const started = Date.now();
      await reconcileDir(this.ctx(), ROOT_ID, this.opts.root, true);
      this.lastScanMs = Date.now() - started;
      this.lastReconcile = new Date();
    });
  }

  private async save(): Promise<void> {
    if (!this.ready || !this.dirty) return;
    this.dirty = false;
    try {
      const pace = this.searches.pacer();
      await saveSnapshot(this.store, this.opts.root, this.snapshotFile, () => (this.abort.signal.aborted ? Promise.resolve() : pace()));
    } catch (err) {
      this.dirty = true;
      this.opts.log.warn(`search index: could not save a snapshot: ${(err as Error).message}`);
    }
  }

  /** fm wrote or created something: index it now rather than waiting for the watcher. */
  written(abs: string): Promise<void> {
    return this.enqueue(() => upsertPath(this.ctx(), abs));
  }

  removed(abs: string): Promise<void> {
    return this.enqueue(() => removePath(this.ctx(), abs));
  }

  moved(fromAbs: string, toAbs: string): Promise<void> {
    return this.enqueue(async () => {
      removePath(this.ctx(), fromAbs);
      await upsertPath(this.ctx(), toAbs);
    });
  }

  /** Resolves when every queued change has been applied (tests, shutdown). */
  settled(): Promise<void> {
    return this.queue;
  }

  status(): IndexStatus {
    return {
      ready: this.ready,
      scanning: this.scanning,
      entries: Math.max(0, this.store.live - 1),
      watching: this.watching,
      lastReconcile: this.lastReconcile?.toISOString() ?? null,
      lastScanMs: this.lastScanMs,
      trigrams: this.trigrams.size,
    };
  }

  get isReady(): boolean {
    return this.ready;
  }

  private idOf(abs: string): number {
    const rel = path.relative(this.opts.root, abs);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return -1;
    return rel ? this.store.lookup(rel.split(path.sep).join('/')) : ROOT_ID;
  }

  /** Bytes and number of entries under a folder, from the index; undefined until it is ready or when not indexed. */
  treeUsage(abs: string): { bytes: number; files: number } | undefined {
    if (!this.ready) return undefined;
    const id = this.idOf(abs);
    return id >= 0 && this.store.isDir(id) ? { bytes: this.store.treeSizeOf(id), files: this.store.treeCountOf(id) } : undefined;
  }

  /** The entries and the id of a folder, for reads that walk the index (the analyzer); undefined until ready. */
  folderEntries(dirAbs: string): { store: EntryStore; id: number } | undefined {
    const id = this.ready ? this.idOf(dirAbs) : -1;
    return id >= 0 && this.store.isDir(id) ? { store: this.store, id } : undefined;
  }

  /**
   * A folder whose children the index holds exactly as the scan read them, in name order, while
   * the folder's stat `st` (taken now) is the one it had then (store.ts `markListed`); else undefined.
   */
  listedFolder(dirAbs: string, st: FolderStat): ({ store: EntryStore; id: number } & ListedCounts) | undefined {
    const id = this.ready ? this.idOf(dirAbs) : -1;
    const counts = id >= 0 ? this.store.listedAs(id, st) : undefined;
    return counts && { store: this.store, id, ...counts };
  }

  /** Total sizes of the sub-folders of a folder, by name; undefined until the index is ready. */
  childDirSizes(dirAbs: string): Map<string, number> | undefined {
    if (!this.ready) return undefined;
    const id = this.idOf(dirAbs);
    if (id < 0 || !this.store.isDir(id)) return undefined;
    const out = new Map<string, number>();
    for (const child of this.store.childIds(id)) {
      if (this.store.isDir(child)) out.set(this.store.name(child), this.store.treeSizeOf(child));
    }
    return out;
  }

  /**
   * Entries under `dirAbs` whose name contains any of `terms` (all names when `terms` is empty)
   * and that pass `filter`. Terms are matched case-insensitively unless `caseSensitive`.
   */
  *query(dirAbs: string, terms: string[], caseSensitive: boolean, filter?: (e: IndexedEntry) => boolean): Generator<IndexHit> {
    const store = this.store;
    const ended = this.searches.begin();
    try {
      const dirId = this.idOf(dirAbs);
      if (dirId < 0 || !store.isDir(dirId)) return;
      const needles = terms.filter(Boolean);
      const lowered = needles.map((t) => t.toLowerCase());
      const named = needles.length ? namedFilter(store, needles, caseSensitive) : undefined;
      const passes = (id: number): boolean => {
        if (filter) {
          const isDir = store.isDir(id);
          if (!filter({ name: store.name(id), size: store.treeSizeOf(id), mtimeMs: store.mtime[id], isDir, type: store.typeOf(id) })) {
            return false;
          }
        }
        return dirId === ROOT_ID || store.isUnder(id, dirId);
      };
      // Hits come in runs from the same folder, and folders share ancestors: each folder's path
      // below `dirId` ("a/b/", "" for `dirId` itself) is spelt once per query, from its parent's.
      const folderRels = new Map<number, string>([[dirId, '']]);
      const relOf = (folder: number): string => {
        if (folder <= ROOT_ID) return ''; // only reached when `dirId` is the root
        let rel = folderRels.get(folder);
        if (rel === undefined) {
          rel = `${relOf(store.parentOf(folder))}${store.name(folder)}/`;
          folderRels.set(folder, rel);
        }
        return rel;
      };
      const hit = (id: number): IndexHit => ({
        rel: relOf(store.parentOf(id)) + store.name(id),
        isDir: store.isDir(id),
        isLink: store.isLink(id),
        size: store.sizeOf(id),
        mtimeMs: store.mtime[id],
      });
      // Candidates a block at a time (trigrams.ts PostingCursor): every id when a term is
      // shorter than a trigram, else each term's rarest trigram's list.
      const lists: PostingCursor[] | undefined =
        lowered.length && lowered.every((t) => t.length >= 3) ? lowered.map((t) => this.trigrams.candidates(t)!) : undefined;
      const block = new Int32Array(BLOCK);
      const seen = lists && lists.length > 1 ? new Uint8Array(store.count) : undefined;
      let nextId = 1;
      const count = store.count;
      for (let list = 0; list < (lists?.length ?? 1); list++) {
        for (;;) {
          let n: number;
          if (lists) n = lists[list].read(block);
          else {
            n = Math.min(BLOCK, count - nextId);
            for (let i = 0; i < n; i++) block[i] = nextId + i;
            nextId += n;
          }
          if (n <= 0) break;
          const kept = named ? named(block, n) : keepLive(store, block, n);
          for (let i = 0; i < kept; i++) {
            const id = block[i];
            // Checked again: an entry may have gone while the query paused earlier in the block.
            if (id === dirId || store.isDead(id)) continue;
            if (seen) {
              if (seen[id]) continue;
              seen[id] = 1;
            }
            if (passes(id)) yield hit(id);
          }
        }
      }
    } finally {
      ended();
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
    for (const t of this.timers) clearInterval(t);
    for (const t of this.relists.values()) clearTimeout(t);
    this.watcher?.close();
    await this.queue.catch(() => {});
    if (this.ready && this.dirty) {
      this.dirty = false;
      await saveSnapshot(this.store, this.opts.root, this.snapshotFile).catch(() => {});
    }
  }
}
