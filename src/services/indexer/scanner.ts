/**
 * Filling the store from disk: a full scan, a subtree scan, and reconciliation of a loaded
 * snapshot by folder mtimes. Uses synchronous readdir/lstat in small batches (much faster than
 * the thread pool on 2 cores) and yields to the event loop between batches. Names are kept in
 * fm's string form (files/disk/names.ts), so a name that is not UTF-8 is indexed exactly.
 */
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { typeFromName } from '../files/types.ts';
import { isPartialName } from '../files/io.ts';
import { readNamesSync } from '../files/disk/dirents.ts';
import { lstatOrUndefined, lstatPlainOrUndefined } from '../files/disk/lookup.ts';
import { hasEscapes } from '../files/disk/names.ts';
import type { Stats } from '../files/disk/types.ts';
import { type EntryStore, ROOT_ID, TYPE_CODES, type EntryData, type IndexedType } from './store.ts';

/** Work units (entries) between yields to the event loop. */
const BATCH = 2000;

export interface ScanContext {
  store: EntryStore;
  /** Absolute real path of the indexed root. */
  root: string;
  /** Paths never indexed (fm's own files). */
  skip: (abs: string) => boolean;
  /** Called for every entry added, with its name (the trigram index listens). */
  onAdd: (id: number, name: string) => void;
  /** Called for every id removed. */
  onRemove?: (ids: number[]) => void;
  /** Stops a long scan (shutdown). */
  signal?: AbortSignal;
  /** Told of every folder just before it is read (the watcher watches it from then on). */
  onFolder?: (abs: string) => void;
}

export function entryFromStats(name: string, st: Stats): EntryData {
  const isDir = st.isDirectory();
  const detected = isDir ? '' : (typeFromName(name) ?? 'blob');
  const type: IndexedType = (TYPE_CODES as readonly string[]).includes(detected) ? (detected as IndexedType) : 'blob';
  return { name, size: isDir ? 0 : st.size, mtimeMs: st.mtimeMs, isDir, isLink: st.isSymbolicLink(), type };
}

let budget = BATCH;
/** Counts one unit of work; true when it is time to yield (callers then `await pause()`). */
function due(): boolean {
  if (--budget > 0) return false;
  budget = BATCH;
  return true;
}
async function pause(signal?: AbortSignal): Promise<void> {
  await yieldToLoop();
  if (signal?.aborted) throw new Error('index scan aborted');
}

/** Scans the folder `dirId` (already in the store) and everything below it. */
export async function scanTree(ctx: ScanContext, dirId: number, dirAbs: string): Promise<void> {
  const stack: Array<[number, string]> = [[dirId, dirAbs]];
  while (stack.length) {
    const [id, abs] = stack.pop()!;
    ctx.onFolder?.(abs);
    let names: string[];
    try {
      names = readNamesSync(abs);
    } catch {
      continue;
    }
    const plain = !hasEscapes(abs) && !names.some(hasEscapes);
    const kids = ctx.store.childIds(id);
    const known = kids.length ? new Set(kids.map((k) => ctx.store.name(k))) : undefined;
    for (const name of names) {
      if (due()) await pause(ctx.signal);
      if (isPartialName(name) || known?.has(name)) continue;
      const childAbs = abs === '/' ? `/${name}` : `${abs}/${name}`;
      if (ctx.skip(childAbs)) continue;
      const st = plain ? lstatPlainOrUndefined(childAbs) : lstatOrUndefined(childAbs);
      if (!st) continue;
      const childId = ctx.store.add(id, entryFromStats(name, st));
      ctx.onAdd(childId, name);
      if (st.isDirectory()) stack.push([childId, childAbs]);
    }
  }
}

/** Removes an entry and everything below it, and tells `onRemove`. */
function removeEntry(ctx: ScanContext, id: number): void {
  const removed = ctx.store.remove(id); // never inside `onRemove?.(…)`: without a listener it would not run
  ctx.onRemove?.(removed);
}

/** Adds or refreshes the entry at `abs` (and scans it when it is a new folder). */
export async function upsertPath(ctx: ScanContext, abs: string): Promise<void> {
  const rel = path.relative(ctx.root, abs);
  if (rel.startsWith('..') || path.isAbsolute(rel) || ctx.skip(abs)) return;
  const segments = rel ? rel.split(path.sep) : [];
  if (segments.length === 0) return;
  // Make sure every ancestor is indexed first.
  let dir = ROOT_ID;
  let dirAbs = ctx.root;
  for (const seg of segments.slice(0, -1)) {
    const next = ctx.store.child(dir, seg);
    dirAbs = path.join(dirAbs, seg);
    if (next < 0) {
      const st = lstatOrUndefined(dirAbs);
      if (!st?.isDirectory()) return;
      const id = ctx.store.add(dir, entryFromStats(seg, st));
      ctx.onAdd(id, seg);
      await scanTree(ctx, id, dirAbs);
      return;
    }
    if (!ctx.store.isDir(next)) return;
    dir = next;
  }
  const name = segments[segments.length - 1];
  if (isPartialName(name)) return;
  const st = lstatOrUndefined(abs);
  const existing = ctx.store.child(dir, name);
  if (!st) {
    if (existing >= 0) removeEntry(ctx, existing);
    return;
  }
  if (existing >= 0 && ctx.store.isDir(existing) === st.isDirectory() && ctx.store.isLink(existing) === st.isSymbolicLink()) {
    ctx.store.update(existing, st.isDirectory() ? 0 : st.size, st.mtimeMs);
    if (st.isDirectory()) await reconcileDir(ctx, existing, abs, true);
    return;
  }
  if (existing >= 0) removeEntry(ctx, existing);
  const id = ctx.store.add(dir, entryFromStats(name, st));
  ctx.onAdd(id, name);
  if (st.isDirectory()) await scanTree(ctx, id, abs);
}

/** Removes the entry at `abs`, if indexed. */
export function removePath(ctx: ScanContext, abs: string): void {
  const rel = path.relative(ctx.root, abs);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return;
  const id = ctx.store.lookup(rel.split(path.sep).join('/'));
  if (id > ROOT_ID) removeEntry(ctx, id);
}

/**
 * Brings indexed folders in line with the disk. Every folder is lstat-ed; only folders whose
 * mtime changed are re-read (names added or removed there). With `recursive` false only the
 * given folder is re-read, whatever its mtime (a watcher "update" on a folder).
 * File contents changed while nobody watched keep their old size and mtime until touched.
 */
export async function reconcileDir(ctx: ScanContext, dirId: number, dirAbs: string, recursive: boolean): Promise<void> {
  const { store } = ctx;
  const stack: Array<[number, string]> = [[dirId, dirAbs]];
  let first = true;
  while (stack.length) {
    const [id, abs] = stack.pop()!;
    if (due()) await pause(ctx.signal);
    ctx.onFolder?.(abs);
    const st = lstatOrUndefined(abs);
    if (!st?.isDirectory()) {
      if (id !== ROOT_ID) removeEntry(ctx, id);
      continue;
    }
    if (first || st.mtimeMs !== store.mtime[id]) {
      store.update(id, 0, st.mtimeMs);
      await reread(ctx, id, abs);
    }
    first = false;
    if (!recursive) continue;
    for (const child of store.childIds(id)) {
      if (store.isDir(child)) stack.push([child, path.join(abs, store.name(child))]);
    }
  }
}

/** Re-reads one folder: removes vanished names, adds (and scans) new ones. */
async function reread(ctx: ScanContext, id: number, abs: string): Promise<void> {
  const { store } = ctx;
  let names: string[];
  try {
    names = readNamesSync(abs);
  } catch {
    return;
  }
  const onDisk = new Set(names);
  const byName = new Map<string, number>();
  for (const child of store.childIds(id)) {
    const name = store.name(child);
    if (!onDisk.has(name)) removeEntry(ctx, child);
    else byName.set(name, child);
  }
  for (const name of names) {
    if (due()) await pause(ctx.signal);
    if (byName.has(name) || isPartialName(name)) continue;
    const childAbs = path.join(abs, name);
    if (ctx.skip(childAbs)) continue;
    const st = lstatOrUndefined(childAbs);
    if (!st) continue;
    const newId = store.add(id, entryFromStats(name, st));
    ctx.onAdd(newId, name);
    if (st.isDirectory()) await scanTree(ctx, newId, childAbs);
  }
}
