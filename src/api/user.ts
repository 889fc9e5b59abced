/**
 * The user contract shared by the server, the CLI and the web UI: types and constants only (no
 * zod, no node builtins: the web bundle imports this). The zod schemas are in src/schemas/user.ts.
 */
import type { TwoFactorState } from './totp.ts';

export const PERMISSION_NAMES = ['admin', 'execute', 'create', 'rename', 'modify', 'delete', 'share', 'download'] as const;
export type PermissionName = (typeof PERMISSION_NAMES)[number];
export type Permissions = Record<PermissionName, boolean>;

/** Permissions that need another: sharing hands out downloads, so it needs download. */
export const PERMISSION_NEEDS: Partial<Record<PermissionName, PermissionName>> = { share: 'download' };

/** Why a set of permissions cannot be saved (a permission without the one it needs), or undefined. */
export function permissionProblem(perm: Permissions): string | undefined {
  for (const [p, needed] of Object.entries(PERMISSION_NEEDS) as Array<[PermissionName, PermissionName]>) {
    if (perm[p] && !perm[needed]) return `${p} permission requires ${needed} permission`;
  }
  return undefined;
}

/**
 * One permission ticked or cleared, keeping the needs: ticking share ticks download, clearing
 * download clears share (what the user form does, so that it never offers what the server refuses).
 */
export function withPermission(perm: Permissions, name: PermissionName, value: boolean): Permissions {
  const next = { ...perm, [name]: value };
  for (const [p, needed] of Object.entries(PERMISSION_NEEDS) as Array<[PermissionName, PermissionName]>) {
    if (value && name === p) next[needed] = true;
    if (!value && name === needed) next[p] = false;
  }
  return next;
}

/** The listing views, in the order the view button cycles through them. */
export const VIEW_MODES = ['list', 'mosaic', 'mosaic gallery'] as const;
export type ViewMode = (typeof VIEW_MODES)[number];

/** The 23 interface languages (spec §1), in filebrowser's spellings. */
export const LOCALE_CODES = [
  'ar',
  'de',
  'en',
  'es',
  'fr',
  'he',
  'hu',
  'is',
  'it',
  'ja',
  'ko',
  'nlBE',
  'pl',
  'pt',
  'ptBR',
  'ro',
  'ru',
  'sk',
  'svSE',
  'tr',
  'ua',
  'zhCN',
  'zhTW',
] as const;
export type LocaleCode = (typeof LOCALE_CODES)[number];

export const SORT_FIELDS = ['name', 'size', 'modified'] as const;

export interface Sorting {
  by: string;
  asc: boolean;
}

/** A path or regular-expression rule (filebrowser's shape). */
export interface Rule {
  regex: boolean;
  allow: boolean;
  path: string;
  regexp: { raw: string };
}

/** The fields a user record has on the wire (password is a write-only field). */
export interface UserData {
  id: number;
  username: string;
  password: string;
  scope: string;
  locale: string;
  lockPassword: boolean;
  viewMode: ViewMode;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  sorting: Sorting;
  rules: Rule[];
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  /** Byte quota over the user's scope (0 = none; docs/quotas.md). */
  quota: number;
  /** Entry quota over the user's scope: files, folders and links (0 = none). */
  quotaFiles: number;
  /** fm's own: the listing shows folders' total sizes (from the index, `?dirsizes=true`). */
  dirSizes: boolean;
}

/** What the server returns for a user: everything but the password hash. */
export type UserDto = Omit<UserData, 'password'> & { password: '' };

/** Body of POST /api/users and PUT /api/users/{id}, as the server reads it. */
export interface UserWrite {
  what: 'user';
  which: string[];
  current_password?: string;
  data: Record<string, unknown>;
}

/** The subset of the user carried in the JWT `user` claim (filebrowser's shape). */
export interface TokenUser {
  id: number;
  username: string;
  locale: string;
  viewMode: ViewMode;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  perm: Permissions;
  commands: string[];
  lockPassword: boolean;
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  sorting: Sorting;
  /** fm's own: whether two-factor login is on, and whether the policy leads this user to enrol. */
  twoFactor?: TwoFactorState;
  /** fm's own: folder sizes in the listing (absent in tokens of older versions). */
  dirSizes?: boolean;
}
