import { type QueryKey, useQuery, type UseQueryOptions } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { statusOf } from '../../api/client.ts';
import { useNotify } from '../../actions/notify.ts';

export interface ServerData<T> {
  /** The loaded value (null until it arrives). */
  data: T | null;
  /** The HTTP status of a failed load (shown as a notification too), for an error screen. */
  error: number | null;
  /** Loads again (for the error screen's Retry). */
  retry: () => void;
}

/** A page's server data through the query cache; a failed load is also shown as a notice. */
export function useServerData<T, K extends QueryKey>(options: UseQueryOptions<T, Error, T, K>): ServerData<T> {
  const { showError } = useNotify();
  const query = useQuery(options);
  useEffect(() => {
    if (query.error) showError(query.error);
  }, [query.error, showError]);
  const { refetch } = query;
  const retry = useCallback(() => void refetch(), [refetch]);
  return { data: query.data ?? null, error: query.error ? statusOf(query.error) : null, retry };
}
