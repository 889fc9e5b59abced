/** Helpers shared by the share and public-share integration tests. */
import { rawRequest, type RawResponse } from '../helpers/http-raw.ts';
import type { Client, FmServer } from '../helpers/server.ts';
import type { ShareDto } from '../../src/api/shares.ts';

export type { ShareDto };

export type { RawResponse } from '../helpers/http-raw.ts';

/** GET with the path sent byte for byte (fetch would normalise `..` and `%2e%2e`). */
export function rawGet(base: string, rawPath: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(base, { path: rawPath, headers });
}

/** Creates a link as `client`; throws unless 200. */
export async function share(client: Client, path: string, body: Record<string, unknown> = {}): Promise<ShareDto> {
  const res = await client.fetch(`/api/share${path}`, { method: 'POST', json: body });
  if (res.status !== 200) throw new Error(`share ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ShareDto;
}

/** Updates fields of a user as the admin. */
export async function updateUser(admin: Client, fm: FmServer, id: number, data: Record<string, unknown>): Promise<void> {
  const res = await admin.fetch(`/api/users/${id}`, {
    method: 'PUT',
    json: { what: 'user', which: Object.keys(data), current_password: fm.adminPassword, data: { id, ...data } },
  });
  if (res.status !== 200) throw new Error(`update user ${id}: ${res.status} ${await res.text()}`);
}

export const PERMS = { admin: false, execute: false, create: true, rename: true, modify: true, delete: true, share: true, download: true };

/** Public info of a share (no login). */
export function publicInfo(fm: FmServer, hash: string, sub = '', headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fm.url}/api/public/share/${hash}${sub}`, { headers });
}
