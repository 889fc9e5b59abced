/**
 * One subscriber's view of a folder: the names it hears are filtered exactly as the listing
 * filters them (rules, hidden dotfiles, fm's own files, writes in progress), gathered for a
 * short while, then sent as one batch of the entries as the listing shows them (`items`) and
 * the names no longer there (`removed`). Past `maxBatch` names a batch becomes one `reset`:
 * the client refetches the folder instead.
 */
import type { LiveChangeDto } from '../../api/live.ts';
import type { Gate, Target } from '../files/gate.ts';
import { entriesAt, scanItem, statEntries, visibilityIn } from '../files/listing.ts';
import { hasEscapes, nameBytes } from '../files/disk/names.ts';
import type { LiveSink } from './hub.ts';

export interface FolderStreamOptions {
  /** How long changes gather before a batch goes out, ms. */
  batchMs: number;
  /** Names in one batch beyond which a reset is sent instead. */
  maxBatch: number;
}

export const DEFAULT_STREAM_OPTIONS: FolderStreamOptions = { batchMs: 200, maxBatch: 1000 };

/** Writes one event to the client. */
export type LiveSend = (event: 'change' | 'reset', data: LiveChangeDto | Record<string, never>) => void;

export class FolderStream implements LiveSink {
  private readonly shows: (name: string) => boolean;
  private pending = new Set<string>();
  private needsReset = false;
  private timer?: NodeJS.Timeout;
  private flushing = false;
  private closed = false;

  constructor(
    private readonly gate: Gate,
    private readonly target: Target,
    private readonly send: LiveSend,
    private readonly opts: FolderStreamOptions = DEFAULT_STREAM_OPTIONS,
  ) {
    this.shows = visibilityIn(gate, target);
  }

  changed(name: string): void {
    if (this.needsReset || !this.shows(name)) return;
    this.pending.add(name);
    if (this.pending.size > this.opts.maxBatch) this.reset();
    else this.schedule();
  }

  reset(): void {
    this.needsReset = true;
    this.pending.clear();
    this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.timer || this.flushing || this.closed) return;
    this.timer = setTimeout(() => void this.flush(), this.opts.batchMs);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    this.flushing = true;
    try {
      if (this.needsReset) {
        this.needsReset = false;
        this.send('reset', {});
      } else if (this.pending.size) {
        const names = [...this.pending];
        this.pending.clear();
        const batch = await this.render(names);
        if (!this.closed) this.send('change', batch);
      }
    } catch {
      // The folder could not be read (removed meanwhile): the client's refetch will say why.
      if (!this.closed) this.send('reset', {});
    } finally {
      this.flushing = false;
      if (this.pending.size || this.needsReset) this.schedule();
    }
  }

  /** The entries as the listing shows them now; names that are gone (or may no longer be shown) are removed. */
  private async render(names: string[]): Promise<LiveChangeDto> {
    const entries = entriesAt(this.target);
    entries.names = names;
    if (names.some(hasEscapes)) entries.nameBytes = names.map((n) => (hasEscapes(n) ? nameBytes(n) : undefined));
    const scan = await statEntries(this.gate, this.target, entries);
    const out: LiveChangeDto = { items: [], removed: [] };
    for (let i = 0; i < names.length; i++) {
      if (scan.present[i]) out.items.push(scanItem(scan, i));
      else out.removed.push(names[i]);
    }
    return out;
  }
}
