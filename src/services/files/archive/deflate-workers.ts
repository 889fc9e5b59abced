/**
 * Deflating a zip's small entries in worker threads, in batches. One `zlib.deflateRaw` call per
 * small file costs more in set-up (a zlib stream, its state, a thread-pool round trip) than in
 * compressing a few KiB: on 2 cores, 2,000 files took 3× longer through the thread pool than
 * `deflateRawSync` in a loop. So entries are gathered into batches of up to BATCH_BYTES (or
 * whatever arrived before the event loop turns), copied into one transferable buffer, and each
 * worker deflates its batch in a loop. Workers are long-lived and never keep the process alive;
 * without them (one core, or they failed) entries are packed on the main thread's pool.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { packEntry, type PackedEntry, ZIP_LEVEL } from './zip-writer.ts';

const BATCH_BYTES = 1 << 20;
const BATCH_ENTRIES = 64;

/** The worker: deflates each entry of a batch and returns the CRCs and the deflated bytes of those that shrank. */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const zlib = require('node:zlib');
parentPort.on('message', (job) => {
  try {
    if (job.gzip || job.piece) {
      // A piece of a raw deflate stream ends with a sync flush, so pieces concatenate (parallel-gzip.ts).
      const member = job.piece
        ? zlib.deflateRawSync(job.data, { level: job.level, finishFlush: zlib.constants.Z_SYNC_FLUSH })
        : zlib.gzipSync(job.data, { level: job.level });
      // Its own ArrayBuffer, so that it can be transferred.
      const data = member.byteOffset === 0 && member.byteLength === member.buffer.byteLength ? member : new Uint8Array(member);
      parentPort.postMessage({ id: job.id, result: { data } }, [data.buffer]);
      return;
    }
    const input = Buffer.from(job.data.buffer, job.data.byteOffset, job.data.byteLength);
    const n = job.lens.length;
    const crc = new Uint32Array(n);
    const method = new Uint8Array(n);
    const outLens = new Uint32Array(n);
    const parts = [];
    let at = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const src = input.subarray(at, at + job.lens[i]);
      at += job.lens[i];
      crc[i] = zlib.crc32(src);
      // Entries that do not shrink are stored: the main thread still has their bytes.
      if (src.length === 0) continue;
      const deflated = zlib.deflateRawSync(src, { level: job.level });
      if (deflated.length >= src.length) continue;
      method[i] = 8;
      parts.push(deflated);
      outLens[i] = deflated.length;
      total += deflated.length;
    }
    // Its own ArrayBuffer (never Buffer's shared pool), so that it can be transferred.
    const data = new Uint8Array(total);
    let to = 0;
    for (const p of parts) {
      data.set(p, to);
      to += p.length;
    }
    parentPort.postMessage({ id: job.id, result: { data, crc, method, outLens } }, [data.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: job.id, error: String((err && err.message) || err) });
  }
});`;

interface BatchResult {
  data: Uint8Array;
  crc: Uint32Array;
  method: Uint8Array;
  outLens: Uint32Array;
}

class DeflateWorker {
  private worker?: Worker;
  private next = 0;
  private readonly pending = new Map<number, { resolve: (r: BatchResult) => void; reject: (e: Error) => void }>();
  broken = false;

  run(data: Uint8Array, lens: number[]): Promise<BatchResult> {
    return this.post({ data, lens, level: ZIP_LEVEL }, data);
  }

  gzip(data: Uint8Array, level: number, piece: boolean): Promise<{ data: Uint8Array }> {
    return this.post(piece ? { piece: true, data, level } : { gzip: true, data, level }, data) as unknown as Promise<{ data: Uint8Array }>;
  }

  private post(job: Record<string, unknown>, data: Uint8Array): Promise<BatchResult> {
    if (!this.worker) {
      const worker = new Worker(WORKER_SOURCE, { eval: true });
      worker.unref();
      worker.on('message', (m: { id: number; result?: BatchResult; error?: string }) => {
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.result) p?.resolve(m.result);
        else p?.reject(new Error(m.error));
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('deflate worker exited')));
      this.worker = worker;
    }
    const id = ++this.next;
    const worker = this.worker;
    return new Promise<BatchResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id }, [data.buffer as ArrayBuffer]);
    });
  }

  private fail(err: Error): void {
    this.broken = true;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }
}

const workers = Array.from({ length: Math.min(4, os.availableParallelism()) }, () => new DeflateWorker());
let nextWorker = 0;

type Waiting = { source: Buffer; resolve: (p: PackedEntry) => void; reject: (e: Error) => void };

/**
 * Gathers entries into batches for the workers. `pack` resolves with the entry as the zip
 * writer takes it; batches leave when full or when the event loop turns.
 */
export function createDeflateBatcher(): { pack(source: Buffer): Promise<PackedEntry> } {
  let waiting: Waiting[] = [];
  let bytes = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (!waiting.length) return;
    const batch = waiting;
    waiting = [];
    bytes = 0;
    const usable = os.availableParallelism() > 1 ? workers.filter((w) => !w.broken) : [];
    if (!usable.length) {
      for (const w of batch) packEntry(w.source, false).then(w.resolve, w.reject);
      return;
    }
    const lens = batch.map((w) => w.source.length);
    const data = new Uint8Array(lens.reduce((a, b) => a + b, 0));
    let at = 0;
    for (const w of batch) {
      data.set(w.source, at);
      at += w.source.length;
    }
    usable[nextWorker++ % usable.length].run(data, lens).then(
      (r) => {
        let from = 0;
        batch.forEach((w, i) => {
          const out = Buffer.from(r.data.buffer, r.data.byteOffset + from, r.outLens[i]);
          from += r.outLens[i];
          w.resolve({ method: r.method[i] === 8 ? 8 : 0, crc: r.crc[i], size: w.source.length, data: r.method[i] === 8 ? out : w.source });
        });
      },
      // A worker that failed: this batch is packed here, and later ones go to the others.
      () => {
        for (const w of batch) packEntry(w.source, false).then(w.resolve, w.reject);
      },
    );
  };

  return {
    pack(source) {
      return new Promise<PackedEntry>((resolve, reject) => {
        waiting.push({ source, resolve, reject });
        bytes += source.length;
        if (bytes >= BATCH_BYTES || waiting.length >= BATCH_ENTRIES) flush();
        else if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}

/**
 * gzips a block (its own ArrayBuffer, which is transferred) in a worker thread, or with `piece`
 * deflates it raw ending with a sync flush (a piece of one raw deflate stream), so that CPU
 * work never fills libuv's thread pool, which file reads wait on. Undefined when no worker is
 * usable (one core, or they failed).
 */
export function gzipInWorker(block: Uint8Array, level: number, piece = false): Promise<Buffer> | undefined {
  const usable = os.availableParallelism() > 1 ? workers.filter((w) => !w.broken) : [];
  if (!usable.length) return undefined;
  return usable[nextWorker++ % usable.length].gzip(block, level, piece).then((r) => Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength));
}

/** How many blocks the workers can compress at once. */
export function workerCount(): number {
  return workers.length;
}
