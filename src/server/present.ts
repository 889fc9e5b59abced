/** Presenters: the only way entities leave the server. Secrets never do. */
import type { UserDto } from '../api/user.ts';
import type { UserRecord } from '../storage/repos/users.ts';

/** A user as the API shows it; non-admin viewers do not see scopes. */
export function presentUser(u: UserRecord, viewer: UserRecord): UserDto {
  return {
    id: u.id,
    username: u.username,
    password: '',
    scope: viewer.perm.admin ? u.scope : '',
    locale: u.locale,
    lockPassword: u.lockPassword,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: { ...u.perm },
    commands: [...u.commands],
    sorting: { ...u.sorting },
    rules: u.rules.map((r) => ({ ...r, regexp: { ...r.regexp } })),
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
  };
}
