/**
 * Changes of files announced between instances (channel `fm_files`), so that each instance's
 * search index of the shared root follows writes made through the others at once, whatever its
 * watcher sees of a network file system. An instance ignores its own announcements.
 */
import crypto from 'node:crypto';
import type { FilesChange } from '../cluster.ts';

export const FILES_CHANNEL = 'fm_files';
/** NOTIFY's payload limit is 8000 bytes; a change that does not fit is left to the watcher. */
const MAX_PAYLOAD = 7_900;

type Run = <T>(sql: string, values?: unknown[]) => Promise<T[]>;

export class FilesAnnouncements {
  private readonly self = crypto.randomBytes(8).toString('hex');
  private readonly handlers: Array<(change: FilesChange) => void> = [];

  constructor(private readonly run: Run) {}

  announce(change: FilesChange): void {
    // JSON escapes lone surrogates, so a name that is not UTF-8 travels as valid text.
    const payload = JSON.stringify({ from: this.self, ...change });
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) return;
    this.run('SELECT pg_notify($1, $2)', [FILES_CHANNEL, payload]).catch(() => {});
  }

  subscribe(fn: (change: FilesChange) => void): void {
    this.handlers.push(fn);
  }

  received(payload: string): void {
    let change: FilesChange & { from?: string };
    try {
      change = JSON.parse(payload);
    } catch {
      return;
    }
    if (change.from === this.self || typeof change.abs !== 'string') return;
    const { kind, abs, toAbs } = change;
    for (const fn of this.handlers) fn({ kind, abs, toAbs });
  }
}
