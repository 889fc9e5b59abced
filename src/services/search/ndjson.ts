/**
 * Streams objects as NDJSON (one JSON document per line). Lines found close together are sent
 * in one chunk (every `flushMs`, or sooner when a batch reaches `flushBytes`); an empty line goes
 * out whenever nothing was sent for `heartbeatMs`, so clients and proxies see a live stream
 * during long searches. The source is iterated with backpressure and abandoned as soon as the
 * stream is closed or destroyed (the client went away).
 */
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';

export interface NdjsonOptions<T> {
  heartbeatMs?: number;
  flushMs?: number;
  flushBytes?: number;
  /** One item's JSON (without the newline); JSON.stringify unless given. */
  render?: (item: T) => string;
  /** Called when the source fails mid-stream (the stream then ends early). */
  onError?: (err: unknown) => void;
}

/**
 * A readable of NDJSON lines from `source`. `controller` is aborted when the readable closes,
 * which must make `source` stop (pass its signal to the producer).
 */
export function ndjsonStream<T>(source: AsyncIterable<T>, controller: AbortController, opts: NdjsonOptions<T> = {}): Readable {
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  const flushMs = opts.flushMs ?? 50;
  // Large chunks: each is a write to the socket, and a search's hits come by the thousand.
  const flushBytes = opts.flushBytes ?? 64 * 1024;
  const render = opts.render ?? ((item: T) => JSON.stringify(item));
  const out = new PassThrough();
  const { signal } = controller;
  out.once('close', () => controller.abort(new Error('the client went away')));

  let pending = '';
  let flushTimer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  const armHeartbeat = () => {
    clearTimeout(heartbeat);
    heartbeat = setTimeout(() => {
      if (signal.aborted) return;
      out.write('\n');
      armHeartbeat();
    }, heartbeatMs);
  };
  /** Sends what is pending; false when the reader is behind. */
  const flush = (): boolean => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    if (!pending || signal.aborted) return true;
    const chunk = pending;
    pending = '';
    armHeartbeat();
    return out.write(chunk);
  };

  void (async () => {
    armHeartbeat();
    try {
      for await (const item of source) {
        if (signal.aborted) break;
        pending += `${render(item)}\n`;
        if (pending.length >= flushBytes) {
          if (!flush()) await once(out, 'drain', { signal });
        } else {
          flushTimer ??= setTimeout(flush, flushMs);
        }
      }
      flush();
    } catch (err) {
      if (!signal.aborted) opts.onError?.(err);
    } finally {
      clearTimeout(flushTimer);
      clearTimeout(heartbeat);
      if (!out.destroyed) out.end();
    }
  })();
  return out;
}
