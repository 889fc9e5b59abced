import { useSyncExternalStore } from 'react';
import { NARROW_MAX_WIDTH } from '../../state/layout.ts';

const query = `(max-width: ${NARROW_MAX_WIDTH}px)`;

function subscribe(cb: () => void): () => void {
  const mq = window.matchMedia(query);
  mq.addEventListener('change', cb);
  return () => mq.removeEventListener('change', cb);
}

/** True on narrow screens (width 736 px or less). */
export function useNarrow(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches);
}
