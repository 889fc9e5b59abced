/** Share links: management for signed-in users and the public share calls (reference §6). */
import type { ShareDto } from '../../src/api/shares.ts';
import type { FileInfoDto, ListingDto } from '../../src/api/files.ts';
import { encodePath, trimSlash } from '../lib/paths.ts';
import type { ShareUnit } from '../../src/api/shares.ts';
import { request, requestJSON } from './client.ts';

export type { ShareDto };

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

/** Creates a link; `expires` 0 = permanent. */
export function create(path: string, expires: number, unit: ShareUnit, password: string): Promise<ShareDto> {
  const body = expires > 0 || password ? { password, expires: expires > 0 ? String(expires) : '', unit } : {};
  return requestJSON<ShareDto>(`/api/share${pathPart(path)}`, { method: 'POST', json: body });
}

export async function remove(hash: string): Promise<void> {
  await request(`/api/share/${encodeURIComponent(hash)}`, { method: 'DELETE' });
}

/** A shared file or folder as the public API answers: `token` when the link has a password. */
export type PublicResource = (FileInfoDto & Partial<Omit<ListingDto, keyof FileInfoDto>>) & { token?: string };

/**
 * GET /api/public/share/{hash}/{subpath} with the password (header, URL-encoded) or the token
 * (query) of an earlier answer. A 401 never ends the visitor's own session.
 */
export function getPublic(hash: string, subpath: string, auth: { password?: string; token?: string } = {}, signal?: AbortSignal): Promise<PublicResource> {
  const headers: Record<string, string> = {};
  if (auth.password) headers['X-SHARE-PASSWORD'] = encodeURIComponent(auth.password);
  const q = auth.token ? `?token=${encodeURIComponent(auth.token)}` : '';
  const sub = trimSlash(subpath) === '/' ? '' : encodePath(trimSlash(subpath));
  return requestJSON<PublicResource>(`/api/public/share/${encodeURIComponent(hash)}${sub}${q}`, { headers, keepSessionOn401: true, signal });
}
