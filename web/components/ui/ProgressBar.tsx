import { useAtomValue } from 'jotai';
import { loadingAtom } from '../../state/layout.ts';

/**
 * A thin indeterminate bar at the top while page data loads. Decoration only, hidden from assistive
 * technology: what loads says so itself (the listing's aria-busy, the loading texts).
 */
export function ProgressBar() {
  const loading = useAtomValue(loadingAtom) > 0;
  return <div className={`progress-bar${loading ? ' progress-bar-active' : ''}`} aria-hidden="true" />;
}
