/**
 * A folder in pages, so the first rows paint before a large folder has arrived: the first page
 * of items, then the rest in one request, put together in the server's order (folders first,
 * then the user's sorting, which the server applies). A folder that fits in the first page
 * costs one request, as before. The resource a page yields carries `numTotal` while items are
 * still to come, and never once complete.
 */
import * as resources from './resources.ts';
import type { Resource } from './resources.ts';

/** Items in the first page: several screens of the tallest view. */
export const FIRST_PAGE = 300;

/** Whether a (cached) folder still waits for items of its later pages. */
export function isPartial(res: Resource): boolean {
  return res.numTotal !== undefined && (res.items?.length ?? 0) < res.numTotal;
}

function complete(res: Resource): Resource {
  const { numTotal: _, ...rest } = res;
  return rest;
}

/** The resource at `path`, as it grows: the first page, then the whole folder (with folder sizes when `dirSizes`). */
export async function* resourcePages(path: string, signal: AbortSignal, dirSizes = false): AsyncGenerator<Resource> {
  const first = await resources.get(path, signal, { offset: 0, limit: FIRST_PAGE }, dirSizes);
  if (!first.isDir || first.numTotal === undefined || first.numTotal <= FIRST_PAGE) {
    yield complete(first);
    return;
  }
  yield first;
  const rest = await resources.get(path, signal, { offset: FIRST_PAGE }, dirSizes);
  // The folder changed between the two requests: the pages may overlap or miss an entry.
  if (rest.numTotal !== first.numTotal) yield await resources.get(path, signal, undefined, dirSizes);
  else yield complete({ ...rest, items: (first.items ?? []).concat(rest.items ?? []) });
}
