import { useEffect, useRef, useState } from 'react';
import { DONE_MS } from './Button.tsx';

export type ActionState = 'idle' | 'busy' | 'done';

/**
 * Runs an async action once at a time: `busy` while it runs, `done` for a moment after success,
 * back to `idle` after failure. Returns whether it succeeded.
 */
export function useAction(fn: () => Promise<unknown> | unknown): { state: ActionState; run: () => Promise<boolean> } {
  const [state, setState] = useState<ActionState>('idle');
  const mounted = useRef(true);
  const busy = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  const run = async () => {
    if (busy.current) return false;
    busy.current = true;
    setState('busy');
    try {
      await fn();
      if (mounted.current) {
        setState('done');
        setTimeout(() => mounted.current && setState('idle'), DONE_MS);
      }
      return true;
    } catch {
      if (mounted.current) setState('idle');
      return false;
    } finally {
      busy.current = false;
    }
  };
  return { state, run };
}
