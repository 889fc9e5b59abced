/** The files API (reference §3 and §7): listings, creation, copy/move, delete, checksums, usage, raw and preview URLs. */
import { withBase } from '../config.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import { request, requestJSON } from './client.ts';

export type ResourceType = '' | 'image' | 'audio' | 'video' | 'pdf' | 'text' | 'textImmutable' | 'blob' | 'invalid_link';

/** One entry of a listing, or a file. */
export interface ResourceItem {
  name: string;
  path: string;
  size: number;
  extension: string;
  modified: string;
  mode?: number;
  isDir: boolean;
  isSymlink?: boolean;
  type: ResourceType;
}

/** GET /api/resources/{path}: a folder (with items) or a file. */
export interface Resource extends ResourceItem {
  items?: ResourceItem[];
  numDirs?: number;
  numFiles?: number;
  sorting?: { by: string; asc: boolean };
  content?: string;
  subtitles?: string[];
  checksums?: Record<string, string>;
}

export const CHECKSUM_ALGORITHMS = ['md5', 'sha1', 'sha256', 'sha512'] as const;
export type ChecksumAlgorithm = (typeof CHECKSUM_ALGORITHMS)[number];

/** The archive formats of the download prompt: label and the `algo` value the server expects. */
export const ARCHIVE_FORMATS = [
  { label: 'zip', algo: 'zip' },
  { label: 'tar', algo: 'tar' },
  { label: 'tar.gz', algo: 'targz' },
  { label: 'tar.bz2', algo: 'tarbz2' },
  { label: 'tar.xz', algo: 'tarxz' },
  { label: 'tar.lz4', algo: 'tarlz4' },
  { label: 'tar.sz', algo: 'tarsz' },
] as const;

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

export async function get(path: string, signal?: AbortSignal): Promise<Resource> {
  return normalize(await requestJSON<Resource>(resourceUrl(path), { signal }), path);
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

export interface Usage {
  used: number;
  total: number;
}

export function usage(path: string, signal?: AbortSignal): Promise<Usage> {
  const t = trimSlash(path);
  return requestJSON<Usage>(`/api/usage${t === '/' ? '/' : encodePath(t) + '/'}`, { signal });
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
