import { useEffect } from 'react';
import { instanceName } from '../../config.ts';

/** Sets the document title to "page - instance name" (spec §1). */
export function useTitle(page: string): void {
  useEffect(() => {
    document.title = page ? `${page} - ${instanceName}` : instanceName;
  }, [page]);
}
