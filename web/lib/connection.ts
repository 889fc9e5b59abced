/**
 * Waiting for the network to come back: an upload that lost its connection waits here and then
 * goes on from the offset the server kept (tus), instead of failing.
 */

/** How often a transfer tries again while the browser believes it is online but nothing answers. */
export const RECONNECT_RETRY_MS = 3000;

/** The window's part that the wait reads (a stand-in in unit tests). */
export interface ConnectionWatch {
  readonly navigator: { readonly onLine: boolean };
  addEventListener(type: 'online', listener: () => void): void;
  removeEventListener(type: 'online', listener: () => void): void;
}

/**
 * True for a request that got no answer at all (the network failed, not the server): a tus
 * `DetailedError` with a request and no response, or the API client's connection error.
 */
export function isNetworkFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ConnectionError') return true;
  const detailed = err as Error & { originalRequest?: unknown; originalResponse?: { getStatus(): number } | null };
  if (!detailed.originalRequest) return false;
  return !detailed.originalResponse || detailed.originalResponse.getStatus() === 0;
}

/**
 * Resolves when the connection may be back: at the `online` event, or after RECONNECT_RETRY_MS
 * when the browser already believes it is online (the server itself was out of reach).
 * Rejects with an AbortError when `signal` aborts.
 */
export function waitForConnection(signal: AbortSignal, watch: ConnectionWatch = window, retryMs = RECONNECT_RETRY_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      watch.removeEventListener('online', done);
      signal.removeEventListener('abort', aborted);
      resolve();
    };
    const aborted = () => {
      clearTimeout(timer);
      watch.removeEventListener('online', done);
      reject(new DOMException('The upload was cancelled', 'AbortError'));
    };
    if (signal.aborted) {
      aborted();
      return;
    }
    signal.addEventListener('abort', aborted, { once: true });
    watch.addEventListener('online', done);
    if (watch.navigator.onLine) timer = setTimeout(done, retryMs);
  });
}
