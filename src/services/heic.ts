/**
 * HEIC/HEIF decoding with heic-decode (libheif compiled to WASM) in worker threads: a decode
 * takes from tens of milliseconds to seconds of CPU, which must not stall the event loop.
 * The image size is read from the container before any pixel is decoded, so oversized images
 * are refused cheaply. Workers start on demand, one job each, and exit when idle.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Decoded pixels: RGBA, 4 bytes per pixel. */
export interface HeicPixels {
  width: number;
  height: number;
  data: Buffer;
}

/** The image exceeds the pixel limit; nothing was decoded. */
export class HeicTooLargeError extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super(`the image is ${width}×${height} pixels`);
  }
}

// Runs as CommonJS inside the worker (eval mode gives it `require`).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const decode = require(workerData.modulePath);
parentPort.on('message', async ({ buffer, maxPixels }) => {
  let images;
  try {
    images = await decode.all({ buffer: new Uint8Array(buffer) });
    const image = images[0];
    if (image.width * image.height > maxPixels) {
      parentPort.postMessage({ tooLarge: true, width: image.width, height: image.height });
      return;
    }
    const { width, height, data } = await image.decode();
    parentPort.postMessage({ width, height, data: data.buffer }, [data.buffer]);
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  } finally {
    if (images) images.dispose();
  }
});
`;

interface Reply {
  error?: string;
  tooLarge?: boolean;
  width: number;
  height: number;
  data?: ArrayBuffer;
}

export interface HeicDecoderOptions {
  /** Most workers alive at once (callers should bound concurrency to the same number). */
  maxWorkers: number;
  /** A decode taking longer is abandoned and its worker killed. */
  timeoutMs?: number;
  /** An idle worker exits after this long. */
  idleMs?: number;
}

export class HeicDecoder {
  private readonly idle: Worker[] = [];
  private readonly busy = new Set<Worker>();
  private readonly idleTimers = new Map<Worker, NodeJS.Timeout>();
  private modulePath?: string;

  constructor(private readonly opts: HeicDecoderOptions) {}

  /** Decodes the first image of a HEIC/HEIF file, refusing images over `maxPixels`. */
  async decode(file: Buffer, maxPixels: number): Promise<HeicPixels> {
    const worker = this.take();
    const timeoutMs = this.opts.timeoutMs ?? 60_000;
    let settled = false;
    try {
      const reply = await new Promise<Reply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('HEIC decoding timed out')), timeoutMs);
        const done = () => {
          clearTimeout(timer);
          worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        };
        const onMessage = (m: Reply) => {
          done();
          resolve(m);
        };
        const onError = (err: Error) => {
          done();
          reject(err);
        };
        const onExit = (code: number) => {
          done();
          reject(new Error(`the HEIC worker exited with code ${code}`));
        };
        worker.on('message', onMessage).on('error', onError).on('exit', onExit);
        // A copy, transferred: the caller keeps its buffer and nothing is cloned twice.
        const copy = new Uint8Array(file).buffer;
        worker.postMessage({ buffer: copy, maxPixels }, [copy]);
      });
      settled = true;
      if (reply.error) throw new Error(`HEIC decoding failed: ${reply.error}`);
      if (reply.tooLarge) throw new HeicTooLargeError(reply.width, reply.height);
      return { width: reply.width, height: reply.height, data: Buffer.from(reply.data!) };
    } finally {
      this.give(worker, settled);
    }
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    for (const t of this.idleTimers.values()) clearTimeout(t);
    this.idleTimers.clear();
    const all = [...this.idle, ...this.busy];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(all.map((w) => w.terminate()));
  }

  private take(): Worker {
    let worker = this.idle.pop();
    if (worker) {
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
    } else {
      if (this.busy.size >= this.opts.maxWorkers) throw new Error('too many HEIC decodes at once');
      this.modulePath ??= createRequire(import.meta.url).resolve('heic-decode');
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { modulePath: this.modulePath } });
      worker.unref(); // never keeps the process alive
      worker.on('error', () => {}); // reported to the job in flight; an idle worker just dies
      worker.once('exit', () => this.forget(worker!));
    }
    this.busy.add(worker);
    return worker;
  }

  /** Back to the idle pool, or killed when the job did not end cleanly (timeout, crash). */
  private give(worker: Worker, healthy: boolean): void {
    this.busy.delete(worker);
    if (!healthy) {
      this.forget(worker);
      void worker.terminate();
      return;
    }
    this.idle.push(worker);
    const timer = setTimeout(() => {
      this.forget(worker);
      void worker.terminate();
    }, this.opts.idleMs ?? 30_000);
    timer.unref();
    this.idleTimers.set(worker, timer);
  }

  private forget(worker: Worker): void {
    this.busy.delete(worker);
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    clearTimeout(this.idleTimers.get(worker));
    this.idleTimers.delete(worker);
  }
}
