/** User calls the UI makes for the signed-in user (profile, view preferences). */
import type { UserDto } from '../../src/api/user.ts';
import { request, requestJSON } from './client.ts';

export function get(id: number): Promise<UserDto> {
  return requestJSON<UserDto>(`/api/users/${id}`);
}

/** Updates only the named fields of a user. */
export async function update(id: number, which: string[], data: Record<string, unknown>, currentPassword?: string): Promise<void> {
  await request(`/api/users/${id}`, {
    method: 'PUT',
    json: { what: 'user', which, data: { id, ...data }, ...(currentPassword !== undefined ? { current_password: currentPassword } : {}) },
  });
}
