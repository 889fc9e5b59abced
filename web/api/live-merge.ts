/**
 * A live listing's batch applied to the folder shown: changed entries replace theirs or are
 * put where the server would list them (folders first, then the folder's sorting, ties by name),
 * removed names leave. Pure. What the cache stores of a live update is marked (`markLive`), so
 * the screen can tell it from a reload (a reload ends multiple selection, a live update does not).
 */
import { compareNames, type FileInfoDto, type Sorting } from '../../src/api/files.ts';
import type { LiveChangeDto } from '../../src/api/live.ts';
import type { Resource } from './resources.ts';

const live = new WeakSet<Resource>();

/** Whether this resource came from a live update (a batch or a refetch after a reset). */
export function isLiveUpdate(res: Resource | undefined): boolean {
  return res !== undefined && live.has(res);
}

export function markLive(res: Resource): Resource {
  live.add(res);
  return res;
}

/** The listing order of two items, as the server sorts them. */
export function listingOrder(sorting: Sorting): (a: FileInfoDto, b: FileInfoDto) => number {
  const dir = sorting.asc ? 1 : -1;
  const within =
    sorting.by === 'size'
      ? (a: FileInfoDto, b: FileInfoDto) => (a.size - b.size) * dir || compareNames(a.name, b.name)
      : sorting.by === 'modified'
        ? (a: FileInfoDto, b: FileInfoDto) => (Date.parse(a.modified) - Date.parse(b.modified)) * dir || compareNames(a.name, b.name)
        : (a: FileInfoDto, b: FileInfoDto) => compareNames(a.name, b.name) * dir;
  return (a, b) => (a.isDir === b.isDir ? within(a, b) : a.isDir ? -1 : 1);
}

/** The folder after a batch (a new object; the input is left as it was). */
export function applyChange(res: Resource, change: LiveChangeDto): Resource {
  const gone = new Set(change.removed);
  for (const item of change.items) gone.add(item.name);
  // A folder's total size (`?dirsizes`) is not in the batch: a changed folder keeps the one shown.
  const dirSize = new Map<string, number>();
  for (const it of res.items ?? []) if (it.dirSize !== undefined && gone.has(it.name)) dirSize.set(it.name, it.dirSize);
  const items = (res.items ?? []).filter((it) => !gone.has(it.name));
  const order = listingOrder(res.sorting ?? { by: 'name', asc: true });
  for (const changed of change.items) {
    const kept = dirSize.get(changed.name);
    const item = kept !== undefined && changed.isDir ? { ...changed, dirSize: kept } : changed;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (order(items[mid], item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, item);
  }
  let numDirs = 0;
  for (const it of items) if (it.isDir) numDirs++;
  return { ...res, items, numDirs, numFiles: items.length - numDirs };
}
