import { useEffect, useState, type DependencyList, type Dispatch, type SetStateAction } from 'react';
import { statusOf } from '../../api/client.ts';
import { showError } from '../../actions/notify.ts';

export interface Loaded<T> {
  /** The loaded value (null until it arrives). */
  data: T | null;
  setData: Dispatch<SetStateAction<T | null>>;
  /** The HTTP status of a failed load (shown as a notification too), for an error screen. */
  error: number | null;
}

/**
 * Loads a page's data when it opens (and again when `deps` change); an answer that arrives
 * after the page has moved on is dropped. Without `load` nothing is fetched.
 */
export function useLoad<T>(load: (() => Promise<T>) | undefined, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<number | null>(null);
  useEffect(() => {
    if (!load) return;
    let live = true;
    load()
      .then((value) => live && setData(value))
      .catch((err) => {
        if (!live) return;
        setError(statusOf(err));
        showError(err);
      });
    return () => {
      live = false;
    };
    // `load` is a new function on every render; `deps` say when it loads something else.
  }, deps);
  return { data, setData, error };
}
