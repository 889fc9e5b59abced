/** Success and error notices (spec §8): `useNotify()` in components, `notifier(store)` in actions. */
import { useSetAtom, type createStore } from 'jotai';
import { useMemo } from 'react';
import { type Notice, pushNoticeAtom } from '../state/notifications.ts';

type Store = ReturnType<typeof createStore>;

export interface Notifier {
  showSuccess(message: string): void;
  /** Shows an error with the server's message; aborted requests and closed confirmations are not errors. */
  showError(err: unknown): void;
}

function notifierFrom(push: (n: Omit<Notice, 'id'>) => void): Notifier {
  return {
    showSuccess: (message) => push({ kind: 'success', message }),
    showError: (err) => {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      // The user closed a confirmation prompt: nothing failed.
      if (err instanceof Error && err.name === 'CancelledError') return;
      push({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
    },
  };
}

/** Notices for code outside components, on the app's store. */
export function notifier(store: Store): Notifier {
  return notifierFrom((n) => store.set(pushNoticeAtom, n));
}

export function useNotify(): Notifier {
  const push = useSetAtom(pushNoticeAtom);
  return useMemo(() => notifierFrom(push), [push]);
}
