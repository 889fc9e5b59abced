/** Success and error notices (spec §8): `useNotify()` in components, `notifier(store)` in actions. */
import { useSetAtom, type createStore } from 'jotai';
import { useMemo } from 'react';
import { ApiError } from '../api/client.ts';
import { errorMessageKey } from '../lib/errorMessage.ts';
import { type Notice, pushNoticeAtom } from '../state/notifications.ts';

type Store = ReturnType<typeof createStore>;

export interface Notifier {
  showSuccess(message: string): void;
  /**
   * Shows an error: an API failure as a translated message with the server's text as detail,
   * anything else by its message. Aborted requests and closed confirmations are not errors.
   */
  showError(err: unknown): void;
}

function notifierFrom(push: (n: Omit<Notice, 'id'>) => void): Notifier {
  return {
    showSuccess: (message) => push({ kind: 'success', message }),
    showError: (err) => {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      // The user closed a confirmation prompt: nothing failed.
      if (err instanceof Error && err.name === 'CancelledError') return;
      push(errorNotice(err));
    },
  };
}

/** The notice for a failure (exported for tests). */
export function errorNotice(err: unknown): Omit<Notice, 'id'> {
  const message = err instanceof Error ? err.message : String(err);
  const key = err instanceof ApiError ? errorMessageKey(err.status, err.code) : undefined;
  // A lost connection has no server text worth showing under the message.
  return key ? { kind: 'error', message, key, detail: err instanceof ApiError && err.status !== 0 ? message : undefined } : { kind: 'error', message };
}

/** Notices for code outside components, on the app's store. */
export function notifier(store: Store): Notifier {
  return notifierFrom((n) => store.set(pushNoticeAtom, n));
}

export function useNotify(): Notifier {
  const push = useSetAtom(pushNoticeAtom);
  return useMemo(() => notifierFrom(push), [push]);
}
