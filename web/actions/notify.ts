/** Success and error notices (spec §8). */
import { pushNoticeAtom } from '../state/notifications.ts';
import { store } from '../state/store.ts';

export function showSuccess(message: string): void {
  store.set(pushNoticeAtom, { kind: 'success', message });
}

/** Shows an error with the server's message; aborted requests are not errors. */
export function showError(err: unknown): void {
  if (err instanceof DOMException && err.name === 'AbortError') return;
  const message = err instanceof Error ? err.message : String(err);
  store.set(pushNoticeAtom, { kind: 'error', message });
}
