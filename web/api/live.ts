/**
 * Follows a folder's live listing (GET /api/events/{path}, Server-Sent Events; the `auth` cookie
 * signs the stream in, as EventSource sends no headers). On any error the stream is closed and
 * opened again after 1, 2, 4 … 30 s; a stream opened again asks for a refetch (what happened
 * while it was away is unknown).
 */
import type { LiveChangeDto } from '../../src/api/live.ts';
import { withBase } from '../config.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';

export interface LiveHandlers {
  change(batch: LiveChangeDto): void;
  /** Refetch the folder. */
  reset(): void;
}

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

/** Opens the folder's stream; returns the function that closes it for good. */
export function followFolder(path: string, handlers: LiveHandlers): () => void {
  const t = trimSlash(path);
  const url = withBase(`/api/events${t === '/' ? '/' : encodePath(t)}`);
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = FIRST_DELAY_MS;
  let connectedBefore = false;
  let closed = false;

  const connect = () => {
    source = new EventSource(url);
    source.addEventListener('ready', () => {
      if (connectedBefore) handlers.reset();
      connectedBefore = true;
      delay = FIRST_DELAY_MS;
    });
    source.addEventListener('change', (e) => handlers.change(JSON.parse((e as MessageEvent<string>).data) as LiveChangeDto));
    source.addEventListener('reset', () => handlers.reset());
    source.onerror = () => {
      // EventSource's own retry has a fixed delay and stops for good on an HTTP error: ours backs off.
      source?.close();
      if (closed) return;
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    };
  };
  connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
  };
}
