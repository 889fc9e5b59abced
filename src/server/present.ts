/** Presenters: the only way entities leave the server. Secrets never do. */
import type { UserDto } from '../api/user.ts';
import { userData, type UserRecord } from '../storage/repos/users.ts';

/** A user as the API shows it; non-admin viewers do not see scopes. */
export function presentUser(u: UserRecord, viewer: UserRecord): UserDto {
  return { ...userData(u), password: '', scope: viewer.perm.admin ? u.scope : '' };
}
