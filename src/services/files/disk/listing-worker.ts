/**
 * Worker threads for large folder listings and archives (two, long-lived, never keeping the
 * process alive). Three jobs: `read` reads a batch of small files for an archive (small-files.ts);
 * `stat` returns raw lstat results; `render` lstat's a batch of names and writes each
 * entry's JSON into a transferable buffer, while the main thread sorts the names; it then only
 * puts folders first and copies bytes. The job functions are self-contained and shipped to the
 * workers as source, so they also run (and are tested) here. They cannot use names.ts: a name
 * that is not UTF-8 reaches them with its exact bytes (`EntryPaths`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { FileType } from '../../../api/files.ts';
import { itemJson, makeIsoTime, makeQuote } from '../listing-render.ts';
import { goFileMode } from '../types.ts';
import { readSmallBatch, type SmallReadJob, type SmallReadResult } from './small-files.ts';
import { davBatch, type DavBatchJob } from './dav-batch.ts';

const LSTAT_BATCH = 1024;
export const KIND_DIR = 1;
export const KIND_LINK = 2;
export const KIND_FIFO = 8;
export const RAW_MISSING = 255;
/** Folders at least this large go to the worker threads. */
export const PARALLEL_MIN = 4096;

/**
 * Entries of one folder: entry i is at `prefix + names[i]` (fm's string form, names.ts). When the
 * folder's path or any of its names is not UTF-8, the exact bytes come along and are used instead.
 */
export interface EntryPaths {
  /** Absolute folder path with a trailing "/". */
  prefix: string;
  names: string[];
  /** The folder path's bytes, with the trailing "/" (only when it is not UTF-8). */
  prefixBytes?: Uint8Array;
  /** The bytes of the names that are not UTF-8, at their index in `names` (absent for the others). */
  nameBytes?: Array<Uint8Array | undefined>;
}

/** Raw lstat results of a batch of names: [mode, size, mtimeMs] per entry, and a kind. */
export interface RawStats {
  num: Float64Array;
  kind: Uint8Array;
}

/** lstat each name. Self-contained: also runs in the workers. */
export function statBatch(d: { fs: typeof fs; Buffer: typeof Buffer }, job: EntryPaths): RawStats {
  const { names, prefix, prefixBytes, nameBytes } = job;
  const n = names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    // The string path is the fast, common case; bytes only for entries that need them.
    const raw = nameBytes ? nameBytes[i] : undefined;
    const p = raw || prefixBytes ? d.Buffer.concat([prefixBytes ?? d.Buffer.from(prefix), raw ?? d.Buffer.from(names[i])]) : prefix + names[i];
    const st = d.fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) {
      kind[i] = 255; // RAW_MISSING
      continue;
    }
    num[i * 3] = st.mode;
    num[i * 3 + 1] = st.size;
    num[i * 3 + 2] = st.mtimeMs;
    kind[i] = st.isSymbolicLink() ? 2 : st.isDirectory() ? 1 : st.isFIFO() ? 8 : 0; // KIND_*
  }
  return { num, kind };
}

export interface RenderJob extends EntryPaths {
  /** Virtual folder path with a trailing "/". */
  vprefix: string;
  /** Listing type by lower-cased extension (names with one), and by name (the others). */
  extTypes: Map<string, FileType | undefined>;
  nameTypes: Map<string, FileType | undefined>;
  textLimit: number;
}

/** Kinds in a rendered batch. */
export const RENDERED_MISSING = 0;
export const RENDERED_DIR = 1;
export const RENDERED_FILE = 2;
export const RENDERED_LINK = 3;

/** A rendered batch; indices are into the job's `names`. */
export interface RenderResult {
  /** Entry i's JSON is `frag[fragOff[i] .. fragOff[i+1])` (empty for links and vanished entries). */
  frag: Uint8Array;
  fragOff: Uint32Array;
  /** RENDERED_*: links are left to the main thread, which resolves them through the gate. */
  kind: Uint8Array;
}

export interface RenderDeps {
  fs: typeof fs;
  path: typeof path;
  Buffer: typeof Buffer;
  goFileMode: typeof goFileMode;
  itemJson: typeof itemJson;
  isoTime: (ms: number) => string;
  quote: (s: string) => string;
}

/** lstat a batch of names and write each entry's JSON. Self-contained: also runs in the workers. */
export function renderBatch(d: RenderDeps, job: RenderJob): RenderResult {
  const { names, prefix, prefixBytes, nameBytes } = job;
  const n = names.length;
  let buf = d.Buffer.allocUnsafeSlow(Math.max(1 << 16, n * 192));
  let off = 0;
  const fragOff = new Uint32Array(n + 1);
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    fragOff[i] = off;
    const name = names[i];
    const raw = nameBytes ? nameBytes[i] : undefined;
    const p = raw || prefixBytes ? d.Buffer.concat([prefixBytes ?? d.Buffer.from(prefix), raw ?? d.Buffer.from(name)]) : prefix + name;
    const st = d.fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) continue; // vanished meanwhile (RENDERED_MISSING)
    if (st.isSymbolicLink()) {
      kind[i] = 3; // RENDERED_LINK
      continue;
    }
    const dir = st.isDirectory();
    const size = dir ? 4096 : st.size;
    let type: FileType = '';
    if (!dir) {
      if (st.isFIFO()) type = 'blob';
      else {
        const dot = name.lastIndexOf('.');
        const t = (dot > 0 && dot < name.length - 1 ? job.extTypes.get(name.slice(dot).toLowerCase()) : job.nameTypes.get(name)) ?? 'blob';
        type = t === 'text' && size > job.textLimit ? 'blob' : t;
      }
    }
    const json = d.itemJson(
      d.quote,
      job.vprefix + name,
      name,
      size,
      dir ? '' : d.path.extname(name),
      d.isoTime(st.mtimeMs),
      d.goFileMode(st.mode, dir, false),
      dir,
      false,
      type,
    );
    if (off + json.length * 3 > buf.length) {
      const bigger = d.Buffer.allocUnsafeSlow(Math.max(buf.length * 2, off + json.length * 3));
      buf.copy(bigger, 0, 0, off);
      buf = bigger;
    }
    off += buf.write(json, off);
    kind[i] = dir ? 1 : 2; // RENDERED_DIR : RENDERED_FILE
  }
  fragOff[n] = off;
  return { frag: buf.subarray(0, off), fragOff, kind };
}

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const deps = {
  fs: require('node:fs'),
  path: require('node:path'),
  zlib: require('node:zlib'),
  Buffer,
  goFileMode: (${goFileMode.toString()}),
  itemJson: (${itemJson.toString()}),
  isoTime: (${makeIsoTime.toString()})(),
  quote: (${makeQuote.toString()})(),
};
const statBatch = (${statBatch.toString()});
const renderBatch = (${renderBatch.toString()});
const readSmallBatch = (${readSmallBatch.toString()});
const davBatch = (${davBatch.toString()});
parentPort.on('message', (job) => {
  try {
    if (job.op === 'read') {
      const r = readSmallBatch(deps, job);
      const deflated = r.crc ? [r.crc.buffer, r.method.buffer] : [];
      parentPort.postMessage({ id: job.id, result: r }, [r.status.buffer, r.num.buffer, r.data.buffer, r.off.buffer, ...deflated]);
    } else if (job.op === 'dav') {
      const r = davBatch(deps, job);
      parentPort.postMessage({ id: job.id, result: r }, [r.frag.buffer, r.fragOff.buffer, r.kind.buffer]);
    } else if (job.op === 'stat') {
      const r = statBatch(deps, job);
      parentPort.postMessage({ id: job.id, result: r }, [r.num.buffer, r.kind.buffer]);
    } else {
      const r = renderBatch(deps, job);
      parentPort.postMessage({ id: job.id, result: r }, [r.frag.buffer, r.fragOff.buffer, r.kind.buffer]);
    }
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String(err && err.message || err) });
  }
});`;

/** The same dependencies on the main thread (fallback when a worker fails, and in tests). */
export const mainRenderDeps: RenderDeps = { fs, path, Buffer, goFileMode, itemJson, isoTime: makeIsoTime(), quote: makeQuote() };

class ListingWorker {
  private worker?: Worker;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (r: unknown) => void; reject: (e: Error) => void }>();
  broken = false;

  run<T>(job: object): Promise<T> {
    if (!this.worker) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref(); // never keeps the process alive
      worker.on('message', (m: { id: number; result?: unknown; error?: string }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error !== undefined) p?.reject(new Error(m.error));
        else p?.resolve(m.result);
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('listing worker exited')));
      this.worker = worker;
    }
    const id = ++this.next;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      this.worker!.postMessage({ ...job, id });
    });
  }

  private fail(err: Error): void {
    // Listings fall back to the main thread; say so once, since they then run slower.
    if (!this.broken) process.emitWarning(`listing worker failed: ${err.message}`);
    this.broken = true;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

const workers = [new ListingWorker(), new ListingWorker()];

/** The usable workers for a folder of `n` entries (none for small folders or a single core). */
function workersFor(n: number): ListingWorker[] {
  if (n < PARALLEL_MIN || os.availableParallelism() < 2) return [];
  return workers.filter((w) => !w.broken);
}

let nextReader = 0;

/**
 * Reads a batch of small files in a worker thread (the two take turns), for archives.
 * Undefined when no worker is usable (a single core, or they failed): read on the main thread.
 */
export function readSmallFilesInWorker(job: SmallReadJob): Promise<SmallReadResult> | undefined {
  if (os.availableParallelism() < 2) return undefined;
  const usable = workers.filter((w) => !w.broken);
  if (!usable.length) return undefined;
  return usable[nextReader++ % usable.length].run<SmallReadResult>({ op: 'read', ...job });
}

/** Entries `from` to `to` (exclusive) of a folder's entries. */
function sliceOf(job: EntryPaths, from: number, to: number): EntryPaths {
  const part: EntryPaths = { prefix: job.prefix, names: job.names.slice(from, to) };
  if (job.prefixBytes) part.prefixBytes = job.prefixBytes;
  if (job.nameBytes) part.nameBytes = job.nameBytes.slice(from, to);
  return part;
}

/** Splits entries into one contiguous slice per worker. */
function slices(job: EntryPaths, parts: number): Array<{ from: number; entries: EntryPaths }> {
  const n = job.names.length;
  const size = Math.ceil(n / parts);
  return Array.from({ length: parts }, (_, p) => ({ from: p * size, entries: sliceOf(job, p * size, Math.min(n, (p + 1) * size)) }));
}

/** lstat all entries: in the workers for large folders (slices in parallel), else here in batches that yield. */
export async function statAll(entries: EntryPaths): Promise<RawStats> {
  const n = entries.names.length;
  const num = new Float64Array(n * 3);
  const kind = new Uint8Array(n);
  const pool = workersFor(n);
  if (pool.length) {
    const parts = slices(entries, pool.length);
    const results = await Promise.all(
      parts.map((s, p) => pool[p].run<RawStats>({ op: 'stat', ...s.entries }).catch(() => statBatch({ fs, Buffer }, s.entries))),
    );
    results.forEach((r, p) => {
      num.set(r.num, parts[p].from * 3);
      kind.set(r.kind, parts[p].from);
    });
    return { num, kind };
  }
  // Synchronous stats in batches: on 2 cores ~2.5× faster than the libuv thread pool;
  // yielding between batches keeps the server responsive.
  for (let from = 0; from < n; from += LSTAT_BATCH) {
    if (from > 0) await yieldToLoop();
    const part = statBatch({ fs, Buffer }, sliceOf(entries, from, Math.min(n, from + LSTAT_BATCH)));
    num.set(part.num, from * 3);
    kind.set(part.kind, from);
  }
  return { num, kind };
}

/**
 * Runs `op` over a large folder in the workers, one slice each (with the slice's first index);
 * a slice whose worker fails runs here with `fallback`. Undefined, at once, when the folder is
 * small or no worker is usable.
 */
function sliceInWorkers<J extends object, R>(
  op: string,
  job: J,
  entries: EntryPaths,
  fallback: (part: J & EntryPaths) => R,
): Promise<Array<{ from: number; result: R }>> | undefined {
  const pool = workersFor(entries.names.length);
  if (!pool.length) return undefined;
  const parts = slices(entries, pool.length);
  return Promise.all(
    parts.map(async (s, p) => ({
      from: s.from,
      result: await pool[p].run<R>({ op, ...job, ...s.entries }).catch(() => fallback({ ...job, ...s.entries })),
    })),
  );
}

/** Starts rendering a large folder's JSON in the workers (sliceInWorkers). */
export function renderInWorkers(job: Omit<RenderJob, keyof EntryPaths>, entries: EntryPaths) {
  return sliceInWorkers('render', job, entries, (part) => renderBatch(mainRenderDeps, part));
}

/** Starts writing a large folder's PROPFIND responses in the workers (sliceInWorkers). */
export function renderDavInWorkers(job: Omit<DavBatchJob, keyof EntryPaths>, entries: EntryPaths) {
  return sliceInWorkers('dav', job, entries, (part) => davBatch(mainRenderDeps, part));
}
