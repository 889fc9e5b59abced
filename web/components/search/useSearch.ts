/**
 * The search overlay's results: a run streams them in, kept in one stable order (compareNames on
 * the path: the server streams them unsorted on purpose), a query typed is run after a pause.
 */
import { useEffect, useRef, useState } from 'react';
import { compareNames } from '../../../src/api/files.ts';
import { search, type SearchResult } from '../../api/search.ts';
import { useNotify } from '../../actions/notify.ts';

/** Typing pauses this long (ms) before the query runs. */
export const SEARCH_DEBOUNCE_MS = 250;

export type SearchState = 'idle' | 'searching' | 'done';

const byPath = (a: SearchResult, b: SearchResult) => compareNames(a.path, b.path);

export function useSearch(dir: string) {
  const { showError } = useNotify();
  const [results, setResults] = useState<SearchResult[]>([]);
  const [state, setState] = useState<SearchState>('idle');
  const running = useRef<AbortController | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  /** Stops a running or pending search and drops the results. */
  const clear = () => {
    clearTimeout(timer.current);
    running.current?.abort();
    setResults([]);
    setState('idle');
  };

  /** Runs `text` now (trimmed; empty is ignored). */
  const run = async (text: string) => {
    clearTimeout(timer.current);
    const query = text.trim();
    if (!query) return;
    running.current?.abort();
    const ac = new AbortController();
    running.current = ac;
    setResults([]);
    setState('searching');
    try {
      await search(dir, query, (batch) => setResults((r) => [...r, ...batch].sort(byPath)), ac.signal);
      if (!ac.signal.aborted) setState('done');
    } catch (err) {
      if (ac.signal.aborted) return;
      setState('idle');
      showError(err);
    }
  };

  /** Runs `text` once typing has paused. */
  const runSoon = (text: string) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void run(text), SEARCH_DEBOUNCE_MS);
  };

  useEffect(
    () => () => {
      clearTimeout(timer.current);
      running.current?.abort();
    },
    [],
  );

  return { results, state, run, runSoon, clear };
}
