/**
 * Marks listed again the large folders whose children the store holds exactly: after a restart
 * from a snapshot (marks are not saved with it), and a listed folder once changes made to it
 * while fm runs have settled (`relistFolder`). Each folder of
 * SORTED_MIN children or more is lstat'ed, then read: when its ctime is older than RACY_MS before
 * this pass started and the names read are the store's children with the same kinds (a name
 * whose file became a folder while fm was down keeps its old kind in a reconciled store), the
 * children are put in `ascendingOrder`'s order where they are not (names a reconciliation added
 * come last) and the folder is marked with that stat, as the build marks it (build.ts): the same
 * proof, the read coming after the stat. Anything else leaves it unmarked. The work per child
 * (the read, a sort key, the comparison, the sort) is done in slices of about 2 ms with a turn of
 * the event loop between them (sliced-order.ts): ~100 ms for 100,000 children, which in one
 * piece held up every request behind it. Nothing else changes the store meanwhile (the
 * index's queue runs one job at a time); the disk may, which the stat's ctime tells.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { nameSortKey } from '../../api/files.ts';
import { DIRENT_DIR, DIRENT_LINK, DIRENT_OTHER, readKindsInBatches } from '../files/disk/dirents.ts';
import { lstatOrUndefined } from '../files/disk/lookup.ts';
import { hasEscapes } from '../files/disk/names.ts';
import { SORTED_MIN } from '../files/disk/tree-scan.ts';
import { RACY_MS } from '../files/folder-names.ts';
import { isPartialName } from '../files/io.ts';
import { orderInSlices, slicer } from './sliced-order.ts';
import { type EntryStore, ROOT_ID } from './store.ts';

/** Re-marks the large folders of a loaded store; `skip`: the paths the index never holds. */
export async function relistLarge(store: EntryStore, root: string, skip: (abs: string) => boolean, signal: AbortSignal): Promise<void> {
  const startedAt = Date.now();
  const count = store.count;
  for (let id = ROOT_ID + 1; id < count; id++) {
    if (signal.aborted) return;
    if ((id & 0xffff) === 0) await yieldToLoop();
    if (!store.isDir(id) || store.isDead(id)) continue;
    let n = 0;
    for (let c = store.firstChild(id); c !== -1 && n < SORTED_MIN; c = store.nextSibling(c)) n++;
    if (n < SORTED_MIN) continue;
    const abs = root === '/' ? store.pathOf(id) : root + store.pathOf(id);
    if (!hasEscapes(abs)) await relistOne(store, id, abs, skip, startedAt);
    await yieldToLoop(); // one large folder at a time between other work
  }
}

/** Puts one folder that was listed in order and marks it again, its changes having settled (index.ts `relistSoon`). */
export async function relistFolder(store: EntryStore, id: number, abs: string, skip: (abs: string) => boolean): Promise<void> {
  if (!hasEscapes(abs)) await relistOne(store, id, abs, skip, Date.now());
}

async function relistOne(store: EntryStore, id: number, abs: string, skip: (abs: string) => boolean, startedAt: number): Promise<void> {
  const st = lstatOrUndefined(abs);
  if (!st?.isDirectory() || st.ctimeMs >= startedAt - RACY_MS) return;
  let read: Awaited<ReturnType<typeof readKindsInBatches>>;
  try {
    read = await readKindsInBatches(abs);
  } catch {
    return;
  }
  if (!read || store.isDead(id)) return; // a name not UTF-8: the store's would have escapes, never listed
  const slice = slicer();
  /** The store's children by name: DIRENT_* as readdir's d_type would give it. */
  const held = new Map<string, number>();
  const ids: number[] = [];
  const names: string[] = [];
  const keys: string[] = [];
  let sorted = true;
  let dirs = 0;
  let links = 0;
  for (let c = store.firstChild(id); c !== -1; c = store.nextSibling(c)) {
    const name = store.name(c);
    if (hasEscapes(name)) return;
    const key = nameSortKey(name);
    const at = keys.length;
    if (at && (key < keys[at - 1] || (key === keys[at - 1] && name < names[at - 1]))) sorted = false;
    ids.push(c);
    names.push(name);
    keys.push(key);
    const kind = store.isDir(c) ? DIRENT_DIR : store.isLink(c) ? DIRENT_LINK : DIRENT_OTHER;
    held.set(name, kind);
    if (kind === DIRENT_DIR) dirs++;
    else if (kind === DIRENT_LINK) links++;
    const p = slice();
    if (p) await p;
  }
  const prefix = abs.endsWith('/') ? abs : `${abs}/`;
  let onDisk = 0;
  for (let i = 0; i < read.names.length; i++) {
    const name = read.names[i];
    if (isPartialName(name) || skip(prefix + name)) continue;
    if (held.get(name) !== read.kinds[i]) return;
    onDisk++;
    const p = slice();
    if (p) await p;
  }
  if (onDisk !== held.size) return;
  if (!sorted) {
    const order = await orderInSlices(names, keys, slice);
    const ordered = new Int32Array(order.length);
    for (let i = 0; i < order.length; i++) ordered[i] = ids[order[i]];
    store.relinkChildren(id, ordered);
  }
  store.markListed(id, st, { children: held.size, dirs, links });
}
