/** The files API (reference §3 and §7): listings, creation, copy/move, delete, checksums, usage, raw and preview URLs. */
import { withBase } from '../config.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import { request, requestJSON } from './client.ts';
import { CHECKSUM_ALGOS, type ChecksumAlgo, type FileInfoDto, type ListingDto, type UsageDto } from '../../src/api/files.ts';

/** One entry of a listing, or a file (the shared contract). */
export type ResourceItem = FileInfoDto;

/** GET /api/resources/{path}: a folder (with items) or a file. */
export type Resource = FileInfoDto & Partial<Omit<ListingDto, keyof FileInfoDto>>;

export const CHECKSUM_ALGORITHMS = CHECKSUM_ALGOS;
export type ChecksumAlgorithm = ChecksumAlgo;
export type Usage = UsageDto;

const resourceUrl = (path: string, isDir = false) => {
  const t = trimSlash(path);
  return `/api/resources${t === '/' ? '/' : encodePath(t) + (isDir ? '/' : '')}`;
};

/** Fills `path` for items of servers that omit it. */
function normalize(res: Resource, path: string): Resource {
  const dir = trimSlash(res.path || path);
  if (res.items) {
    for (const item of res.items) if (!item.path) item.path = `${dir === '/' ? '' : dir}/${item.name}`;
  }
  if (!res.path) res.path = dir;
  return res;
}

/** A page of a folder's items in the server's order (fm's servers; filebrowser's ignore it and send them all). */
export interface Page {
  offset: number;
  limit?: number;
}

/**
 * GET /api/resources/{path}; with a page, a folder's answer carries that page and `numTotal`;
 * with `dirSizes`, each sub-folder its total size (`dirSize`, from the server's index).
 */
export async function get(path: string, signal?: AbortSignal, page?: Page, dirSizes = false): Promise<Resource> {
  const params = new URLSearchParams();
  if (page) params.set('offset', String(page.offset));
  if (page?.limit !== undefined) params.set('limit', String(page.limit));
  if (dirSizes) params.set('dirsizes', 'true');
  const query = params.size ? `?${params}` : '';
  return normalize(await requestJSON<Resource>(resourceUrl(path) + query, { signal }), path);
}

/** Creates an empty file; 409 when the name exists. */
export async function createFile(path: string): Promise<void> {
  await request(`${resourceUrl(path)}?override=false`, { method: 'POST', body: '' });
}

/** Creates a folder (and missing parents). */
export async function createDir(path: string): Promise<void> {
  await request(resourceUrl(path, true), { method: 'POST', body: '' });
}

export async function remove(path: string): Promise<void> {
  await request(resourceUrl(path), { method: 'DELETE' });
}

export interface TransferOptions {
  overwrite?: boolean;
  rename?: boolean;
}

/** Copies or moves (`action=rename`) one item to a full destination path. */
export async function transfer(action: 'copy' | 'rename', from: string, to: string, opts: TransferOptions = {}): Promise<void> {
  const q = new URLSearchParams({
    action,
    destination: encodePath(to),
    override: String(Boolean(opts.overwrite)),
    rename: String(Boolean(opts.rename)),
  });
  await request(`${resourceUrl(from)}?${q}`, { method: 'PATCH' });
}

export async function checksum(path: string, algo: ChecksumAlgorithm): Promise<string> {
  const res = await requestJSON<Resource>(`${resourceUrl(path)}?checksum=${algo}`);
  return res.checksums?.[algo] ?? '';
}

export function usage(path: string, signal?: AbortSignal): Promise<Usage> {
  const t = trimSlash(path);
  return requestJSON<Usage>(`/api/usage${t === '/' ? '/' : `${encodePath(t)}/`}`, { signal });
}

/** The download URL of one file (authenticated by the `auth` cookie). */
export function rawUrl(path: string, inline = false): string {
  return withBase(`/api/raw${encodePath(trimSlash(path))}${inline ? '?inline=true' : ''}`);
}

/** The archive URL of several items (or of one folder) in a format. */
export function archiveUrl(paths: string[], algo: string): string {
  if (paths.length === 1) return withBase(`/api/raw${encodePath(trimSlash(paths[0]))}?algo=${algo}`);
  // Each entry is escaped on its own so commas and percent signs in names survive the list split.
  const files = paths.map((p) => encodePath(trimSlash(p))).join(',');
  return withBase(`/api/raw/?files=${encodeURIComponent(files)}&algo=${algo}`);
}

/** A thumbnail (`thumb`) or resized preview (`big`); `modified` busts caches when the file changes. */
export function previewUrl(path: string, size: 'thumb' | 'big', modified: string): string {
  return withBase(`/api/preview/${size}${encodePath(trimSlash(path))}?inline=true&key=${encodeURIComponent(Date.parse(modified) || modified)}`);
}

/** Saves a text file's content (PUT; needs modify). */
export async function save(path: string, content: string): Promise<void> {
  await request(resourceUrl(path), { method: 'PUT', body: content, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

/** A subtitle file as WebVTT (SRT/ASS converted by the server). */
export function subtitleUrl(path: string): string {
  return withBase(`/api/subtitle${encodePath(trimSlash(path))}`);
}

/** The raw bytes of a file (the TIFF decoder reads them). */
export async function rawBytes(path: string, signal?: AbortSignal): Promise<ArrayBuffer> {
  const res = await request(`/api/raw${encodePath(trimSlash(path))}`, { signal });
  return res.arrayBuffer();
}
