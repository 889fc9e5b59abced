/**
 * Compaction of the index. The store never reuses an id (a rename or an overwrite that changes
 * an entry's kind is a removal plus an addition), so a long-running server would keep every
 * removed entry's columns, name and trigram postings until a restart: a rename a second is
 * millions of dead entries a month. Once removed entries outnumber live ones, the index is
 * rebuilt from the live entries, in the order a snapshot is written and loaded (parents before
 * children, each folder's children in their order), so ids stay ascending for the trigram
 * postings.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { EntryStore, ROOT_ID } from './store.ts';

/** Removed entries kept at least (below this a rebuild costs more than the memory it frees). */
export const COMPACT_MIN_DEAD = 10_000;
/** Entries copied between yields to the event loop. */
const BATCH = 2000;

/** Whether the store holds enough removed entries to be rebuilt: more than live ones, and at least COMPACT_MIN_DEAD. */
export function compactionDue(store: EntryStore): boolean {
  const dead = store.count - store.live;
  return dead >= COMPACT_MIN_DEAD && dead > store.live;
}

/**
 * A new store holding only the live entries of `old`; `onAdd` sees each new id in ascending
 * order (the trigram index listens). `old` is only read, so readers holding it (a search in
 * progress) stay consistent; the caller swaps the new store in and must not change `old`
 * meanwhile (the index runs it in its queue of mutations).
 */
export async function compactStore(old: EntryStore, onAdd: (id: number, name: string) => void, signal?: AbortSignal): Promise<EntryStore> {
  const store = new EntryStore();
  store.mtime[ROOT_ID] = old.mtime[ROOT_ID];
  const stack: Array<[oldId: number, newParent: number]> = [];
  const pushChildren = (oldDir: number, newDir: number) => {
    const kids = old.childIds(oldDir);
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], newDir]);
  };
  pushChildren(ROOT_ID, ROOT_ID);
  let budget = BATCH;
  while (stack.length) {
    if (--budget === 0) {
      budget = BATCH;
      await yieldToLoop();
      if (signal?.aborted) throw new Error('index compaction aborted');
    }
    const [id, parent] = stack.pop()!;
    if (old.isDead(id)) continue;
    const isDir = old.isDir(id);
    const name = old.name(id);
    const fresh = store.add(parent, { name, size: isDir ? 0 : old.sizeOf(id), mtimeMs: old.mtime[id], isDir, isLink: old.isLink(id), type: old.typeOf(id) });
    onAdd(fresh, name);
    if (isDir) pushChildren(id, fresh);
  }
  return store;
}
