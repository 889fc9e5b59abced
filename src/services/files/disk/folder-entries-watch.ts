/**
 * Watches one folder's entries for live listings when the search index (and its tree watcher) is
 * off (`--no-index`): one `fs.watch` on the folder, names as bytes decoded exactly (names.ts).
 * `null` means anything may have changed (the kernel named no entry, or the watch failed and is
 * closed).
 */
import fs from 'node:fs';
import { decodeName, osPath } from './names.ts';

/** Starts watching `dir`; returns the closer, or undefined when the folder cannot be watched. */
export type WatchFolderEntries = (dir: string, onChange: (name: string | null) => void) => (() => void) | undefined;

export const watchFolderEntries: WatchFolderEntries = (dir, onChange) => {
  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(osPath(dir), { encoding: 'buffer', persistent: false }, (_event, name) => onChange(name ? decodeName(name) : null));
  } catch {
    return undefined;
  }
  watcher.on('error', () => {
    watcher.close();
    onChange(null);
  });
  return () => watcher.close();
};
