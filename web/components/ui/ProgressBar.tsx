import { useAtomValue } from 'jotai';
import { loadingAtom } from '../../state/layout.ts';

/** A thin indeterminate bar at the top while page data loads. */
export function ProgressBar() {
  const loading = useAtomValue(loadingAtom) > 0;
  return <div className={`progress-bar${loading ? ' progress-bar-active' : ''}`} role="progressbar" aria-hidden={!loading} aria-busy={loading} />;
}
