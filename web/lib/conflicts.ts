/** Copy/move planning: destination paths and name conflicts (spec §4 "Conflicts"). */
import { joinPath, parentPath, samePath } from './paths.ts';

export interface TransferItem {
  from: string;
  to: string;
  name: string;
}

/** One entry per source, each landing under `destDir` with its own name. */
export function planTransfer(sources: readonly { path: string; name: string }[], destDir: string): TransferItem[] {
  return sources.map((s) => ({ from: s.path, to: joinPath(destDir, s.name), name: s.name }));
}

/** True when every source already sits in `destDir` (the operation then runs directly with rename). */
export function sameFolder(items: readonly TransferItem[], destDir: string): boolean {
  return items.length > 0 && items.every((i) => samePath(parentPath(i.from), destDir));
}

/** The names of `items` that already exist among `existing` names. */
export function conflicts(items: readonly TransferItem[], existing: Iterable<string>): string[] {
  const names = new Set(existing);
  return items.filter((i) => names.has(i.name)).map((i) => i.name);
}
