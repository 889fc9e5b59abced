/** Permission checks on the signed-in user (admin implies every permission). */
import type { PermissionName, TokenUser } from '../../src/api/user.ts';

export function can(user: TokenUser | null | undefined, perm: PermissionName): boolean {
  return Boolean(user && (user.perm.admin || user.perm[perm]));
}
