/**
 * Server data through TanStack Query: one key and one loader per thing the UI shows. Pages read
 * with `useQuery(xxxQuery(...))`; mutations invalidate the keys they change (`invalidate`).
 */
import { type QueryClient, QueryClient as Client, experimental_streamedQuery as streamedQuery, queryOptions } from '@tanstack/react-query';
import { resourcePages } from './listing-pages.ts';
import * as resources from './resources.ts';
import * as settingsApi from './settings.ts';
import * as sharesApi from './shares.ts';
import * as tokensApi from './tokens.ts';
import * as usersApi from './users.ts';
import * as auditApi from './audit.ts';
import * as analyzeApi from './analyze.ts';

/** Query keys, one family per resource; a family's first element invalidates all of it. */
export const keys = {
  resources: ['resource'] as const,
  resource: (path: string) => ['resource', path] as const,
  usage: (path: string) => ['usage', path] as const,
  users: ['users'] as const,
  user: (id: number) => ['users', id] as const,
  shares: ['shares'] as const,
  tokens: ['tokens'] as const,
  settings: ['settings'] as const,
  trash: ['trash'] as const,
  audit: ['audit'] as const,
  analyze: (path: string) => ['analyze', path] as const,
};

/**
 * A folder (with its items, in the server's order) or a file. A large folder's data grows: its
 * first page, then all of it (listing-pages.ts; `isPartial` tells). A refetch (after a change)
 * keeps what is shown until the new listing is whole. `dirSizes` adds folders' total sizes (the
 * same key: the data differs only by the optional `dirSize` of folders).
 */
export const resourceQuery = (path: string, dirSizes = false) =>
  queryOptions({
    queryKey: keys.resource(path),
    queryFn: streamedQuery({
      streamFn: ({ signal }) => resourcePages(path, signal, dirSizes),
      // Each chunk is the whole resource so far.
      reducer: (_shown: resources.Resource, latest: resources.Resource) => latest,
      // Never the data: the stream yields at least once or fails.
      initialValue: undefined as unknown as resources.Resource,
      refetchMode: 'replace',
    }),
  });

export const usageQuery = (path: string) => queryOptions({ queryKey: keys.usage(path), queryFn: ({ signal }) => resources.usage(path, signal) });

export const usersQuery = () => queryOptions({ queryKey: keys.users, queryFn: () => usersApi.list() });

export const userQuery = (id: number) => queryOptions({ queryKey: keys.user(id), queryFn: () => usersApi.get(id) });

export const sharesQuery = () => queryOptions({ queryKey: keys.shares, queryFn: () => sharesApi.list() });

export const tokensQuery = () => queryOptions({ queryKey: keys.tokens, queryFn: () => tokensApi.list() });

export const settingsQuery = () => queryOptions({ queryKey: keys.settings, queryFn: () => settingsApi.get() });

/** The storage analyzer's view of a folder (its largest entries, two levels). */
export const analyzeQuery = (path: string) =>
  queryOptions({
    queryKey: keys.analyze(path),
    queryFn: ({ signal }) => analyzeApi.get(path, signal),
    // The index follows the files: ask again every few seconds while the page is shown (a query
    // costs the server milliseconds), sooner while the index is still being built.
    refetchInterval: (q) => (q.state.data?.state === 'building' ? 2000 : q.state.data?.state === 'off' ? false : 5000),
  });

/** After a change to files: every listing and the disk usage are stale. */
export function invalidateFiles(client: QueryClient): Promise<void> {
  return Promise.all([client.invalidateQueries({ queryKey: keys.resources }), client.invalidateQueries({ queryKey: ['usage'] })]).then(() => undefined);
}

/**
 * The app's query client. Data is always refetched when a screen opens (staleTime 0, as the pages
 * did before), errors are shown by the screens (no automatic retries that would delay them).
 */
export function createQueryClient(): QueryClient {
  return new Client({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 0 },
      mutations: { retry: false },
    },
  });
}

/** A page of the audit log (admins: everyone's; others: their own), and the log's state. */
export const auditQuery = (filter: auditApi.AuditFilter, limit: number, offset: number) =>
  queryOptions({ queryKey: [...keys.audit, filter, limit, offset], queryFn: ({ signal }) => auditApi.list(filter, limit, offset, signal) });

export const auditStatusQuery = () => queryOptions({ queryKey: [...keys.audit, 'status'], queryFn: () => auditApi.status() });
