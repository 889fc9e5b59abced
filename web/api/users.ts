/** The users API: the signed-in user's profile and preferences, and user management for admins. */
import type { UserDto } from '../../src/api/user.ts';
import { request, requestJSON } from './client.ts';

export type { UserDto };

export function get(id: number): Promise<UserDto> {
  return requestJSON<UserDto>(`/api/users/${id}`);
}

/** Every user (admins only). */
export function list(): Promise<UserDto[]> {
  return requestJSON<UserDto[]>('/api/users');
}

const withPassword = (currentPassword?: string) => (currentPassword !== undefined ? { current_password: currentPassword } : {});

/** Updates only the named fields of a user. */
export async function update(id: number, which: string[], data: Record<string, unknown>, currentPassword?: string): Promise<void> {
  await request(`/api/users/${id}`, {
    method: 'PUT',
    json: { what: 'user', which, data: { id, ...data }, ...withPassword(currentPassword) },
  });
}

/** Creates a user and returns its id (from the Location header, `/settings/users/{id}`). */
export async function create(data: Record<string, unknown>, currentPassword?: string): Promise<number> {
  const res = await request('/api/users', { method: 'POST', json: { what: 'user', which: [], data, ...withPassword(currentPassword) } });
  const id = Number((res.headers.get('Location') ?? '').split('/').pop());
  return Number.isSafeInteger(id) ? id : 0;
}

export async function remove(id: number, currentPassword?: string): Promise<void> {
  await request(`/api/users/${id}`, { method: 'DELETE', json: withPassword(currentPassword) });
}
