/**
 * The search index's full scan in worker threads (two, see startTreeScan): readdir and lstat of
 * every entry, handed to the main thread as packed batches (names as bytes, kinds, sizes,
 * mtimes) in a few slots of shared memory, which the index appends to its store while the
 * worker fills the next slot. The scan's garbage (the names as strings, a Stats object per entry,
 * the paths) stays in the workers' heaps, which go away when they exit; nothing is allocated per
 * batch (buffers made in a worker and freed by the main thread stayed in the worker's malloc
 * arena: ~20 MiB), and the threads overlap. The job function is self-contained and shipped as
 * source, like the listing workers' (listing-worker.ts).
 *
 * Order and watching: each worker reads its folders depth first in the order the main-thread
 * scan uses, and numbers them in the order it finds them (the root is 0). Before reading folder
 * k it waits until the main thread has watched it (`ctl[0] > k`): a change made after the read
 * is heard. A folder with a name that needs the byte-exact reading (names.ts) is not read here
 * but sent back (`deferred`), for the main thread's scan, which handles such names. A folder of
 * SORTED_MIN entries or more (but the root, shared out between the workers) is read in name
 * order, its stat taken before its names: the index marks it listed (indexer/store.ts).
 */
import type fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { nameSortKey } from '../../../api/files.ts';

export const SCAN_OTHER = 0;
export const SCAN_DIR = 1;
export const SCAN_LINK = 2;

/** One folder's entries (or part of them). */
export interface ScanBatch {
  /** The number of the folder they are in. */
  folder: number;
  /** Entry i's name is `names[i ? ends[i - 1] : 0 .. ends[i])`: the UTF-8 of fm's string form. */
  names: Uint8Array;
  ends: Uint32Array;
  /** SCAN_*: a folder here gets the next folder number, in the order of the batches. */
  kinds: Uint8Array;
  size: Float64Array;
  mtime: Float64Array;
  /** What the entry's type is decided by: its lower-cased extension (".txt") or "/" + its whole name; indices into `keys` (0 for folders). */
  keyOf: Uint32Array;
  keys: string[];
  /**
   * On a folder's last batch when its entries came in name order (nameSortKey, ties by the raw
   * name): the folder's stat, taken before its names were read.
   */
  listed?: FolderStat;
}

export interface FolderStat {
  dev: number;
  ino: number;
  ctimeMs: number;
}

/** From worker `part`: a batch, or a folder it left to the main thread. */
export type ScanMessage = { part: number } & ({ batch: ScanBatch } | { deferred: number });

/** What the worker posts: a batch sits in a slot of shared memory until the main thread took it. */
type WorkerMessage =
  | { filled: { folder: number; slot: number; count: number; keys: string[]; listed?: FolderStat } }
  | { deferred: number }
  | { done: true }
  | { error: string };

/** The columns of one batch, in shared memory: the worker fills a slot, the main thread reads it. */
type Slot = Omit<ScanBatch, 'folder' | 'keys'>;

/**
 * Folders of at least this many entries are read in name order (sorted in the worker, ~1 µs of
 * its CPU per name): listings take a page of them from the index (files/listing-indexed.ts).
 * Smaller folders are read and sorted by a listing in a few milliseconds; sorting them here would
 * only slow the build (a tree of 1,000 folders of 1,000 files pays nothing).
 */
export const SORTED_MIN = 4096;

/** Batches in flight at most, and each one's size: entries, and name bytes (a name is at most 255 bytes). */
const SLOTS = 4;
const BATCH = 4096;
const NAME_BYTES = 256 * 1024;

function newSlot(): Slot {
  const shared = (bytes: number) => new SharedArrayBuffer(bytes);
  return {
    names: new Uint8Array(shared(NAME_BYTES)),
    ends: new Uint32Array(shared(BATCH * 4)),
    kinds: new Uint8Array(shared(BATCH)),
    size: new Float64Array(shared(BATCH * 8)),
    mtime: new Float64Array(shared(BATCH * 8)),
    keyOf: new Uint32Array(shared(BATCH * 4)),
  };
}

export interface ScanJob {
  /** Absolute real path of the root, which the caller watched (folder 0). */
  root: string;
  /** Paths never scanned, each with everything below it (fm's own files). */
  skipPaths: readonly string[];
  partialPrefix: string;
}

interface WorkerJob extends ScanJob {
  /** SORTED_MIN. */
  sortedMin: number;
  /** This worker reads the root's entries whose name hashes to `part` (of `parts`), and everything below them. */
  part: number;
  parts: number;
  /** Shared: [0] folders watched so far, [1] stop when non-zero, [2] batches the main thread took. */
  ctl: Int32Array;
  slots: Slot[];
}

interface ScanDeps {
  fs: typeof fs;
  Buffer: typeof Buffer;
  Atomics: typeof Atomics;
  sortKey: (name: string) => string;
}

/** Scans the tree into the slots and posts each filled one. Self-contained: runs in the worker. */
function scanJob(d: ScanDeps, job: WorkerJob, post: (m: WorkerMessage) => void): void {
  const suspect = /[\ufffd\uf780-\uf7ff]/;
  const { ctl, slots, skipPaths, partialPrefix, part, parts } = job;
  /** Which worker takes a root entry: by its name, so an entry made between two reads of the root is never taken twice. */
  const partOf = (name: string) => {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
    return (h >>> 0) % parts;
  };
  const entriesMax = slots[0].kinds.length;
  const bytesMax = slots[0].names.length;
  /** Waits until `ready(ctl[at])` or a stop; false on a stop. */
  const waitFor = (at: number, ready: (v: number) => boolean) => {
    for (;;) {
      const v = d.Atomics.load(ctl, at);
      if (ctl[1]) return false;
      if (ready(v)) return true;
      d.Atomics.wait(ctl, at, v, 1000);
    }
  };
  const skipped = (abs: string) => {
    for (const p of skipPaths) if (abs === p || (abs.startsWith(p) && abs.charCodeAt(p.length) === 47)) return true;
    return false;
  };
  let folders = 1;
  let batches = 0;
  const stack: Array<[number, string]> = [[0, job.root]];
  while (stack.length) {
    const [k, abs] = stack.pop()!;
    if (!waitFor(0, (watched) => watched > k)) return;
    let names: string[];
    // The root's entries are shared out between the workers: it is never read whole, nor in order.
    const folderStat = k > 0 ? d.fs.lstatSync(abs, { throwIfNoEntry: false }) : undefined;
    try {
      names = d.fs.readdirSync(abs);
    } catch {
      continue;
    }
    if (names.some((n) => suspect.test(n))) {
      post({ deferred: k });
      continue;
    }
    if (k === 0 && parts > 1) names = names.filter((n) => partOf(n) === part);
    const listed = folderStat && names.length >= job.sortedMin ? { dev: folderStat.dev, ino: folderStat.ino, ctimeMs: folderStat.ctimeMs } : undefined;
    if (listed) {
      const sortKeys = names.map(d.sortKey);
      const order = names.map((_, i) => i);
      order.sort((a, b) => (sortKeys[a] !== sortKeys[b] ? (sortKeys[a] < sortKeys[b] ? -1 : 1) : names[a] < names[b] ? -1 : 1));
      names = order.map((i) => names[i]);
    }
    const dirs: string[] = [];
    let next = 0;
    while (next < names.length) {
      if (!waitFor(2, (taken) => batches - taken < slots.length)) return;
      const slot = batches % slots.length;
      const { names: buf, ends, kinds, size, mtime, keyOf } = slots[slot];
      const keys: string[] = [''];
      const keyIndex = new Map<string, number>();
      let off = 0;
      let count = 0;
      for (; next < names.length && count < entriesMax && off + names[next].length * 3 <= bytesMax; next++) {
        const name = names[next];
        if (name.startsWith(partialPrefix)) continue;
        const child = abs === '/' ? `/${name}` : `${abs}/${name}`;
        if (skipPaths.length && skipped(child)) continue;
        const st = d.fs.lstatSync(child, { throwIfNoEntry: false });
        if (!st) continue;
        // Most names are ASCII: copied in a loop, cheaper than a call into Buffer's encoder each.
        let i = 0;
        while (i < name.length) {
          const c = name.charCodeAt(i);
          if (c >= 0x80) break;
          buf[off + i++] = c;
        }
        off += i === name.length ? i : d.Buffer.from(buf.buffer).write(name, off);
        ends[count] = off;
        const dir = st.isDirectory();
        kinds[count] = dir ? 1 : st.isSymbolicLink() ? 2 : 0; // SCAN_*
        size[count] = dir ? 0 : st.size;
        mtime[count] = st.mtimeMs;
        if (dir) dirs.push(child);
        else {
          const dot = name.lastIndexOf('.');
          const key = dot > 0 && dot < name.length - 1 ? name.slice(dot).toLowerCase() : `/${name}`;
          let at = keyIndex.get(key);
          if (at === undefined) {
            at = keys.push(key) - 1;
            keyIndex.set(key, at);
          }
          keyOf[count] = at;
        }
        count++;
      }
      batches++;
      post({ filled: { folder: k, slot, count, keys, listed: next >= names.length ? listed : undefined } });
    }
    // Depth first, in the main-thread scan's order: the last folder found is read next.
    for (const dir of dirs) stack.push([folders++, dir]);
  }
}

// `__name`: the helper a transpiler that keeps function names (tsx) calls inside the source.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const __name = (fn) => fn;
const scanJob = (${scanJob.toString()});
const nameSortKey = (${nameSortKey.toString()});
try {
  scanJob({ fs: require('node:fs'), Buffer, Atomics, sortKey: nameSortKey }, workerData, (m) => parentPort.postMessage(m));
  parentPort.postMessage({ done: true });
} catch (err) {
  parentPort.postMessage({ error: String((err && err.message) || err) });
}`;

export interface TreeScan {
  /** Resolves when the scan is over (every batch was handed to `onMessage`). */
  done: Promise<void>;
  /** The main thread watched folders 0 to `count` − 1 of worker `part`. */
  watched(part: number, count: number): void;
  stop(): void;
}

/** Starts the scan workers; `onMessage` gets each one's batches and deferred folders in its order. */
export type StartTreeScan = (job: ScanJob, onMessage: (m: ScanMessage) => void) => TreeScan;

/**
 * One worker per core, two at most: the lstat calls of the two run in parallel (the root's
 * entries are shared out by name; a tree below one folder of the root is read by one worker).
 */
export const startTreeScan: StartTreeScan = (job, onMessage) => {
  const parts = Math.min(2, os.availableParallelism());
  const workers = Array.from({ length: parts }, (_, part) => startWorker({ ...job, part, parts }, onMessage));
  let stopped = false;
  const stop = () => {
    stopped = true;
    for (const w of workers) w.stop();
  };
  // One failing stops the others: the caller builds again on the main thread.
  const done = Promise.all(
    workers.map((w) =>
      w.done.catch((err: Error) => {
        if (!stopped) stop();
        throw err;
      }),
    ),
  ).then(() => {});
  return { done, watched: (part, count) => workers[part].watched(count), stop };
};

function startWorker(job: ScanJob & { part: number; parts: number }, onMessage: (m: ScanMessage) => void) {
  const { part } = job;
  const ctl = new Int32Array(new SharedArrayBuffer(12));
  ctl[0] = 1;
  const slots = Array.from({ length: SLOTS }, newSlot);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { ...job, ctl, slots, sortedMin: SORTED_MIN } satisfies WorkerJob,
    // Its garbage is a Stats object and a path per entry, all short-lived: a small young
    // generation costs no CPU and keeps the build's peak ~30 MiB lower (V8 grows it to 32 MiB).
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  });
  worker.unref();
  const signal = (at: number, value: number) => {
    Atomics.store(ctl, at, value);
    Atomics.notify(ctl, at);
  };
  // Once stopped (another worker failed, or the build was aborted), nothing more is delivered;
  // `done` then rejects when the worker exits.
  let stopped = false;
  const done = new Promise<void>((resolve, reject) => {
    let finished = false;
    const fail = (err: Error) => {
      if (finished) return;
      finished = true;
      signal(1, 1);
      void worker.terminate();
      reject(err);
    };
    worker.on('message', (m: WorkerMessage) => {
      if (finished || stopped) return;
      if ('error' in m) fail(new Error(`index scan worker: ${m.error}`));
      else if ('done' in m) {
        finished = true;
        resolve();
      } else {
        try {
          if ('deferred' in m) onMessage({ part, deferred: m.deferred });
          else {
            const { folder, slot, count, keys, listed } = m.filled;
            const s = slots[slot];
            const cut = <T extends Uint8Array | Uint32Array | Float64Array>(a: T) => a.subarray(0, count) as T;
            onMessage({
              part,
              batch: {
                folder,
                names: s.names,
                ends: cut(s.ends),
                kinds: cut(s.kinds),
                size: cut(s.size),
                mtime: cut(s.mtime),
                keyOf: cut(s.keyOf),
                keys,
                listed,
              },
            });
            signal(2, Atomics.load(ctl, 2) + 1);
          }
        } catch (err) {
          fail(err as Error);
        }
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`index scan worker exited (${code})`)));
  });
  return {
    done,
    watched: (count: number) => signal(0, count),
    stop() {
      stopped = true;
      signal(1, 1);
      void worker.terminate();
    },
  };
}
