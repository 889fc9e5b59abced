/** The files screen's server data: the resource at its path, as a listing. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useAtomValue, useSetAtom, useStore } from 'jotai';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { statusOf } from '../../api/client.ts';
import { resourceQuery } from '../../api/queries.ts';
import { isLiveUpdate } from '../../api/live-merge.ts';
import type { Resource } from '../../api/resources.ts';
import { selectAfterReloadAtom, type Listing as ListingData } from '../../state/files.ts';
import { userAtom } from '../../state/auth.ts';
import { loadingAtom } from '../../state/layout.ts';
import { multipleAtom, selectedAtom } from '../../state/selection.ts';
import { useLiveFolder } from './useLiveFolder.ts';

/** A loaded folder as the listing shows it: the server's order (folders first, then the user's sorting). */
export function toListing(resource: Resource): ListingData {
  const items = resource.isDir ? (resource.items ?? []) : [];
  let dirCount = 0;
  while (dirCount < items.length && items[dirCount].isDir) dirCount++;
  return { resource, items, dirCount, total: resource.numTotal ?? items.length };
}

/**
 * The resource at the path (server data, kept while the next path loads). Every (re)load keeps
 * the selection on the same items (or selects a renamed one) and ends multiple-selection mode.
 */
export function useResource(path: string): { listing: ListingData | null; error: number | null; retry: () => void } {
  const dirSizes = useAtomValue(userAtom)?.dirSizes === true;
  const query = useQuery({ ...resourceQuery(path, dirSizes), placeholderData: keepPreviousData });
  const store = useStore();
  const setLoading = useSetAtom(loadingAtom);
  const shown = useRef<ListingData | null>(null);
  const listing = useMemo(() => (query.data ? toListing(query.data) : null), [query.data]);
  // The folder follows its changes (a file's view does not).
  useLiveFolder(path, !query.isPlaceholderData && query.data?.isDir === true, dirSizes);

  useEffect(() => {
    if (!query.isFetching) return;
    setLoading((n) => n + 1);
    return () => setLoading((n) => n - 1);
  }, [query.isFetching, setLoading]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: every load counts, also one that brings the same data (dataUpdatedAt moves, listing may not)
  useEffect(() => {
    // A folder whose later pages are on their way: selection and mode wait for the whole of it.
    if (!listing || query.isPlaceholderData || listing.items.length < listing.total) return;
    const before = shown.current;
    shown.current = listing;
    const pick = store.get(selectAfterReloadAtom);
    if (pick) {
      store.set(selectAfterReloadAtom, undefined);
      store.set(selectedAtom, listing.items.some((it) => it.path === pick) ? [pick] : []);
    } else if (before !== listing) {
      // Paths not in this listing leave the selection: gone (deleted, moved), or of the folder before.
      const present = new Set(listing.items.map((it) => it.path));
      store.set(
        selectedAtom,
        store.get(selectedAtom).filter((p) => present.has(p)),
      );
    }
    // Multiple-selection mode ends with every (re)load (spec §4), not with a live update.
    if (!isLiveUpdate(query.data)) store.set(multipleAtom, false);
  }, [listing, query.dataUpdatedAt, query.isPlaceholderData, store]);

  const { refetch } = query;
  const retry = useCallback(() => void refetch(), [refetch]);
  if (query.isError) return { listing: null, error: statusOf(query.error), retry };
  return { listing, error: null, retry };
}
