/** Share links: management for signed-in users and the public share calls (reference §6). */
import type { DropInfo, DropLimits, ShareDto } from '../../src/api/shares.ts';
import type { FileInfoDto, ListingDto } from '../../src/api/files.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import type { ShareUnit } from '../../src/api/shares.ts';
import { request, requestJSON } from './client.ts';

export type { DropInfo, DropLimits, ShareDto };

const pathPart = (path: string) => {
  const t = trimSlash(path);
  return t === '/' ? '/' : encodePath(t);
};

/** Every link the caller may see (admins: everyone's, with usernames). */
export function list(): Promise<ShareDto[]> {
  return requestJSON<ShareDto[]>('/api/shares');
}

/** The caller's links for exactly this path. */
export function forPath(path: string): Promise<ShareDto[]> {
  return requestJSON<ShareDto[]>(`/api/share${pathPart(path)}`);
}

/** Creates a link; `expires` 0 = permanent; with `drop`, an upload-only link of a folder with these limits. */
export function create(path: string, expires: number, unit: ShareUnit, password: string, drop?: DropLimits): Promise<ShareDto> {
  const body = expires > 0 || password ? { password, expires: expires > 0 ? String(expires) : '', unit } : {};
  return requestJSON<ShareDto>(`/api/share${pathPart(path)}`, { method: 'POST', json: drop ? { ...body, uploadOnly: true, ...drop } : body });
}

export async function remove(hash: string): Promise<void> {
  await request(`/api/share/${encodeURIComponent(hash)}`, { method: 'DELETE' });
}

/** A shared file or folder as the public API answers: `token` when the link has a password. */
export type PublicResource = (FileInfoDto & Partial<Omit<ListingDto, keyof FileInfoDto>>) & { token?: string };

/** What the public API answers for a link: the file or folder, or an upload-only link's name and limits. */
export type PublicAnswer = PublicResource | DropInfo;

export function isDrop(r: PublicAnswer): r is DropInfo {
  return 'uploadOnly' in r && r.uploadOnly === true;
}

/**
 * GET /api/public/share/{hash}/{subpath} with the password (header, URL-encoded) or the token
 * (query) of an earlier answer. A 401 never ends the visitor's own session.
 */
export function getPublic(hash: string, subpath: string, auth: { password?: string; token?: string } = {}, signal?: AbortSignal): Promise<PublicAnswer> {
  const headers: Record<string, string> = {};
  if (auth.password) headers['X-SHARE-PASSWORD'] = encodeURIComponent(auth.password);
  const q = auth.token ? `?token=${encodeURIComponent(auth.token)}` : '';
  const sub = trimSlash(subpath) === '/' ? '' : encodePath(trimSlash(subpath));
  return requestJSON<PublicAnswer>(`/api/public/share/${encodeURIComponent(hash)}${sub}${q}`, { headers, keepSessionOn401: true, signal });
}
