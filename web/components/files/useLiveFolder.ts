/**
 * Keeps the open folder's listing current while it is on screen: one live stream per tab
 * (web/api/live.ts), moved to the next folder on navigation. A batch is applied in place, so
 * the selection, the cursor and the scroll position stay; a reset (or a batch while later pages
 * are still loading) refetches, one at a time, with a gap between them that grows with the folder.
 */
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { isPartial, resourcePages } from '../../api/listing-pages.ts';
import { followFolder } from '../../api/live.ts';
import { applyChange, markLive } from '../../api/live-merge.ts';
import { keys } from '../../api/queries.ts';
import type { Resource } from '../../api/resources.ts';

/**
 * Least time between two refetches of a folder that keeps changing, ms: a second, or three times
 * what the last refetch took (a large folder is not reloaded back to back).
 */
const REFETCH_GAP_MS = 1000;
const REFETCH_GAP_FACTOR = 3;

export function useLiveFolder(path: string, active: boolean, dirSizes: boolean): void {
  const client = useQueryClient();
  useEffect(() => {
    if (!active) return;
    const refetch = coalescedRefetch(client, path, dirSizes);
    const stop = followFolder(path, {
      change(batch) {
        const shown = client.getQueryData<Resource>(keys.resource(path));
        if (!shown?.isDir || isPartial(shown)) return refetch.request();
        showLive(client, path, applyChange(shown, batch));
      },
      reset: () => refetch.request(),
    });
    return () => {
      stop();
      refetch.cancel();
    };
  }, [client, path, active, dirSizes]);
}

/** Puts a live update in the cache, marked as one (the cache stores a structurally shared copy: that copy is marked). */
function showLive(client: QueryClient, path: string, res: Resource): void {
  const stored = client.setQueryData<Resource>(keys.resource(path), res);
  if (stored) markLive(stored);
}

/** Refetches of one folder: one in flight; asked again meanwhile, one more after it, a gap later. */
function coalescedRefetch(client: QueryClient, path: string, dirSizes: boolean) {
  const abort = new AbortController();
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let nextAt = 0;
  const run = async () => {
    timer = undefined;
    running = true;
    const started = Date.now();
    again = false;
    try {
      let latest: Resource | undefined;
      for await (const res of resourcePages(path, abort.signal, dirSizes)) latest = res;
      if (latest && !abort.signal.aborted) showLive(client, path, latest);
    } catch {
      // Gone or forbidden now (the folder was removed, say): the screen's own load says so.
      if (!abort.signal.aborted) void client.invalidateQueries({ queryKey: keys.resource(path) });
    } finally {
      running = false;
      nextAt = Date.now() + Math.max(REFETCH_GAP_MS, (Date.now() - started) * REFETCH_GAP_FACTOR);
      if (again) request();
    }
  };
  const request = () => {
    if (running) {
      again = true;
      return;
    }
    if (timer || abort.signal.aborted) return;
    timer = setTimeout(() => void run(), Math.max(0, nextAt - Date.now()));
  };
  return {
    request,
    cancel() {
      abort.abort();
      clearTimeout(timer);
    },
  };
}
