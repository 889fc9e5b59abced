/** Personal access tokens of the signed-in user (POST/GET/DELETE /api/tokens). */
import type { AccessTokenDto, AccessTokenRequest, CreatedAccessToken } from '../../src/api/tokens.ts';
import { request, requestJSON } from './client.ts';

export type { AccessTokenDto, CreatedAccessToken };

export function list(): Promise<AccessTokenDto[]> {
  return requestJSON<AccessTokenDto[]>('/api/tokens');
}

/** Makes a token; the answer holds its secret, shown this once. `expires` in seconds, 0 = never. */
export function create(req: AccessTokenRequest): Promise<CreatedAccessToken> {
  return requestJSON<CreatedAccessToken>('/api/tokens', { method: 'POST', json: req });
}

export async function remove(id: string): Promise<void> {
  await request(`/api/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}
