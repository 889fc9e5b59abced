/**
 * The index's full build with the scan in worker threads (files/disk/tree-scan.ts): each batch
 * a worker sends is appended here to the store and the trigram index (a copy of bytes and a few
 * columns, no string per entry), and each new folder is watched before its worker reads it. The
 * main thread's heap sees almost none of the scan's garbage, so the build does not grow its
 * young generation, and the store fills while the workers read on.
 */
import { typeFromName } from '../files/types.ts';
import { SCAN_DIR, SCAN_LINK, type ScanMessage, type StartTreeScan } from '../files/disk/tree-scan.ts';
import { PARTIAL_PREFIX } from '../files/io.ts';
import { RACY_MS } from '../files/folder-names.ts';
import { type EntryStore, ROOT_ID, TYPE_CODES, TYPE_SHIFT } from './store.ts';
import type { TrigramIndex } from './trigrams.ts';

export interface WorkerBuild {
  /** Empty but for the root. */
  store: EntryStore;
  trigrams: TrigramIndex;
  /** Absolute real path of the root (already watched). */
  root: string;
  skipPaths: readonly string[];
  /** Told of every folder just before the worker reads it (the watcher watches it). */
  onFolder?: (abs: string) => void;
  signal: AbortSignal;
}

const BLOB = TYPE_CODES.indexOf('blob');

/** The type code of a scan batch's key: a lower-cased extension, or "/" + a whole name. */
function typeCodeOf(key: string): number {
  // typeFromName decides by the lower-cased extension alone when there is one, so any name
  // with that extension ("x" + it) gets the same type.
  const type = key.startsWith('/') ? typeFromName(key.slice(1)) : typeFromName(`x${key}`);
  const code = (TYPE_CODES as readonly string[]).indexOf(type ?? 'blob');
  return code < 0 ? BLOB : code;
}

/**
 * Fills `b.store` and `b.trigrams` from the scan workers. Resolves with the ids of the folders
 * they left to this thread (names that need the byte-exact reading), to be scanned here; rejects
 * when a worker fails or the build is aborted (the store is then half-built: the caller
 * discards it).
 */
export async function buildInWorker(b: WorkerBuild, start: StartTreeScan): Promise<number[]> {
  const { store, trigrams } = b;
  /** Store ids by worker and folder number (each worker numbers folders in the order it finds them; the root is 0). */
  const folderIds: number[][] = [];
  const deferred = new Set<number>();
  // A folder read in name order is marked listed when its stat, taken before the read, is older
  // than RACY_MS before the build started (git's racy rule, as folder-names.ts): any change made
  // after the read then gives it another ctime, whatever the file system's time granularity.
  const startedAt = Date.now();
  /** By worker: the folder its batches are of now, and the counts of what they held so far. */
  const reading: Array<{ folder: number; children: number; dirs: number; links: number }> = [];
  const apply = (m: ScanMessage) => {
    folderIds[m.part] ??= [ROOT_ID];
    const ids = folderIds[m.part];
    if ('deferred' in m) {
      deferred.add(ids[m.deferred]);
      return;
    }
    const { folder, names, ends, kinds, size, mtime, keyOf, keys, listed } = m.batch;
    const codes = keys.map((k) => (k ? typeCodeOf(k) : 0));
    // SCAN_DIR and SCAN_LINK are the store's FLAG_DIR and FLAG_LINK.
    for (let i = 0; i < kinds.length; i++) if (!(kinds[i] & SCAN_DIR)) kinds[i] |= codes[keyOf[i]] << TYPE_SHIFT;
    const first = store.addPacked(ids[folder], names, ends, kinds, size, mtime);
    let counts = reading[m.part];
    if (counts?.folder !== folder) counts = reading[m.part] = { folder, children: 0, dirs: 0, links: 0 };
    counts.children += kinds.length;
    for (let i = 0; i < kinds.length; i++) {
      if (kinds[i] & SCAN_DIR) counts.dirs++;
      else if (kinds[i] & SCAN_LINK) counts.links++;
    }
    if (listed && listed.ctimeMs < startedAt - RACY_MS) store.markListed(ids[folder], listed, counts);
    for (let i = 0; i < kinds.length; i++) {
      const id = first + i;
      trigrams.addUtf8(id, names, i ? ends[i - 1] : 0, ends[i]);
      if (!(kinds[i] & SCAN_DIR)) continue;
      ids.push(id);
      b.onFolder?.(b.root === '/' ? store.pathOf(id) : b.root + store.pathOf(id));
    }
    scan.watched(m.part, ids.length);
  };
  const scan = start({ root: b.root, skipPaths: b.skipPaths, partialPrefix: PARTIAL_PREFIX }, apply);
  const stop = () => scan.stop();
  b.signal.addEventListener('abort', stop);
  try {
    await scan.done;
  } finally {
    b.signal.removeEventListener('abort', stop);
  }
  if (b.signal.aborted) throw new Error('index scan aborted');
  return [...deferred];
}
