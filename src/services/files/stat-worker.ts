/**
 * lstat for folder listings: synchronous batches on the main thread for ordinary folders, two
 * long-lived worker threads for large ones (their stat calls, and the Stats objects Node 20
 * builds with four Dates each, then leave the main thread, which sorts meanwhile).
 */
import fs from 'node:fs';
import os from 'node:os';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

const LSTAT_BATCH = 1024;
export const KIND_DIR = 1;
export const KIND_LINK = 2;
export const KIND_FIFO = 8;

/** Raw lstat results of a batch of names: [mode, size, mtimeMs] per entry, and a kind. */
export interface RawStats {
  num: Float64Array;
  kind: Uint8Array;
}
export const RAW_MISSING = 255;

/** lstat each name (the same code runs in the stat workers, see WORKER_SOURCE). */
function statBatch(prefix: string, names: string[]): RawStats {
  const n = names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const st = fs.lstatSync(prefix + names[i], { throwIfNoEntry: false });
    if (!st) {
      kind[i] = RAW_MISSING;
      continue;
    }
    num[i * 3] = st.mode;
    num[i * 3 + 1] = st.size;
    num[i * 3 + 2] = st.mtimeMs;
    kind[i] = st.isSymbolicLink() ? KIND_LINK : st.isDirectory() ? KIND_DIR : st.isFIFO() ? KIND_FIFO : 0;
  }
  return { num, kind };
}

/** Folders at least this large are stat'ed in the worker threads. */
const PARALLEL_MIN = 4096;
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
parentPort.on('message', ({ id, prefix, names }) => {
  const n = names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const st = fs.lstatSync(prefix + names[i], { throwIfNoEntry: false });
    if (!st) { kind[i] = ${RAW_MISSING}; continue; }
    num[i * 3] = st.mode; num[i * 3 + 1] = st.size; num[i * 3 + 2] = st.mtimeMs;
    kind[i] = st.isSymbolicLink() ? ${KIND_LINK} : st.isDirectory() ? ${KIND_DIR} : st.isFIFO() ? ${KIND_FIFO} : 0;
  }
  parentPort.postMessage({ id, num, kind }, [num.buffer, kind.buffer]);
});`;

/**
 * A long-lived worker thread that lstat's batches of names, so that a large listing's stat
 * calls (and the Stats objects Node 20 builds, four Dates each) leave the main thread.
 */
class StatWorker {
  private worker?: Worker;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (r: RawStats) => void; reject: (e: Error) => void }>();
  broken = false;

  stat(prefix: string, names: string[]): Promise<RawStats> {
    if (!this.worker) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref(); // never keeps the process alive
      worker.on('message', (m: RawStats & { id: number }) => {
        this.pending.get(m.id)?.resolve(m);
        this.pending.delete(m.id);
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('stat worker exited')));
      this.worker = worker;
    }
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker!.postMessage({ id, prefix, names });
    });
  }

  private fail(err: Error): void {
    this.broken = true;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

const statWorkers = [new StatWorker(), new StatWorker()];

/** lstat all names: in the workers for large folders (halves in parallel), else here in batches that yield. */
export function statAll(prefix: string, names: string[]): Promise<RawStats> {
  const n = names.length;
  const workers = statWorkers.filter((w) => !w.broken);
  if (n >= PARALLEL_MIN && workers.length > 0 && os.availableParallelism() > 1) {
    const parts = workers.length;
    const size = Math.ceil(n / parts);
    const jobs = workers.map((w, p) => {
      const slice = names.slice(p * size, Math.min(n, (p + 1) * size));
      return w.stat(prefix, slice).catch(() => statBatch(prefix, slice));
    });
    return Promise.all(jobs).then((results) => {
      const num = new Float64Array(n * 3);
      const kind = new Uint8Array(n);
      results.forEach((r, p) => {
        num.set(r.num, p * size * 3);
        kind.set(r.kind, p * size);
      });
      return { num, kind };
    });
  }
  return statHere(prefix, names);
}

/**
 * Synchronous stats in batches: on 2 cores ~2.5× faster than the libuv thread pool; yielding
 * between batches keeps the server responsive.
 */
async function statHere(prefix: string, names: string[]): Promise<RawStats> {
  const n = names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  for (let from = 0; from < n; from += LSTAT_BATCH) {
    if (from > 0) await yieldToLoop();
    const part = statBatch(prefix, names.slice(from, Math.min(n, from + LSTAT_BATCH)));
    num.set(part.num, from * 3);
    kind.set(part.kind, from);
  }
  return { num, kind };
}
