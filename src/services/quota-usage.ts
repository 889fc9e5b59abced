/**
 * What a folder holds, for quotas: bytes and entries (files, folders and links, the folder itself
 * not counted). From the live search index when it is ready (exact, kept current by fm's file
 * events and the watcher); while it builds, or when it is off (`--no-index`), from one scan of the
 * folder, cached until a file event touches it or it is a minute old (changes made outside fm
 * have no event then). Keyed by real path, so two users with the same scope share the figures.
 */
import path from 'node:path';
import type { FileEvents } from './events.ts';
import type { SearchIndex } from './indexer/index.ts';
import { scanTree } from './indexer/scanner.ts';
import { EntryStore, ROOT_ID } from './indexer/store.ts';

export interface Usage {
  bytes: number;
  files: number;
}

/** A scan older than this is done again (changes outside fm are not announced without the index). */
const SCAN_MAX_AGE_MS = 60_000;

interface CachedScan {
  usage?: Usage;
  at: number;
  pending?: Promise<Usage>;
}

export interface FolderUsageOptions {
  index?: SearchIndex;
  /** fm's own files, never counted (as the index leaves them out). */
  skip: (abs: string) => boolean;
  events: FileEvents;
}

export class FolderUsage {
  /** Scans by folder; a file event under a folder drops its entry, so a scan that ran across a change is not kept. */
  private readonly scans = new Map<string, CachedScan>();

  constructor(private readonly opts: FolderUsageOptions) {
    const { events } = opts;
    events.on('written', (e) => this.touched(e.abs));
    events.on('removed', (e) => this.touched(e.abs));
    events.on('moved', (e) => {
      this.touched(e.fromAbs);
      this.touched(e.toAbs);
    });
  }

  /** The figures of a folder (absolute real path) known without waiting, if any. */
  peek(folder: string): Usage | undefined {
    const indexed = this.opts.index?.treeUsage(folder);
    if (indexed) return indexed;
    const cached = this.scans.get(folder);
    return cached?.usage && Date.now() - cached.at < SCAN_MAX_AGE_MS ? cached.usage : undefined;
  }

  /** The figures of a folder (absolute real path): the index's, or a scan's (one at a time per folder). */
  async of(folder: string): Promise<Usage> {
    const known = this.peek(folder);
    if (known) return known;
    const cached = this.scans.get(folder);
    if (cached?.pending) return cached.pending;
    const entry: CachedScan = { at: Date.now() };
    entry.pending = this.scan(folder).finally(() => {
      entry.pending = undefined;
    });
    this.scans.set(folder, entry);
    const usage = await entry.pending;
    if (this.scans.get(folder) === entry) entry.usage = usage;
    return usage;
  }

  private async scan(folder: string): Promise<Usage> {
    const store = new EntryStore();
    await scanTree({ store, root: folder, skip: this.opts.skip, onAdd: () => {} }, ROOT_ID, folder);
    return { bytes: store.treeSizeOf(ROOT_ID), files: store.live - 1 };
  }

  /** A change at `abs`: forget every scan of a folder that holds it (or that it holds). */
  private touched(abs: string): void {
    for (const folder of this.scans.keys()) {
      if (isWithin(folder, abs) || isWithin(abs, folder)) this.scans.delete(folder);
    }
  }
}

function isWithin(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);
}
