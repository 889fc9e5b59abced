/** Writing Server-Sent Events to a response body, with a bound on what a slow reader leaves buffered. */
import type { PassThrough } from 'node:stream';

/** Bytes a stream may hold for a client that does not read before it is ended (it reconnects and refetches). */
export const SSE_MAX_BUFFERED = 4 * 1024 * 1024;

/** A function that writes one event; past `limit` unread bytes it calls `overflow` instead of buffering on. */
export function sseWriter(body: PassThrough, overflow: () => void, limit = SSE_MAX_BUFFERED) {
  return (event: string, data: unknown): void => {
    if (body.writableEnded) return;
    body.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (body.writableLength > limit) overflow();
  };
}
