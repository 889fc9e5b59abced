/** The editable form of a user (or of the new-user defaults) and its conversion to API data. */
import { type Permissions, type PermissionName, type Rule, type UserDto, type ViewMode, withPermission } from '../../src/api/user.ts';
import type { UserDefaults } from '../../src/api/settings.ts';
import { completeRules } from './rules.ts';
import { formatSize, parseSize } from '../../src/api/size.ts';

/** The permission ticks in display order (admin first). */
export const PERMISSIONS: PermissionName[] = ['admin', 'create', 'delete', 'download', 'modify', 'execute', 'rename', 'share'];

export interface UserDraft {
  username: string;
  /** Blank on edit: unchanged (spec §5). */
  password: string;
  scope: string;
  locale: string;
  lockPassword: boolean;
  perm: Permissions;
  /** Space-separated allowlist. */
  commands: string;
  rules: Rule[];
  viewMode: ViewMode;
  singleClick: boolean;
  hideDotfiles: boolean;
  dateFormat: boolean;
  /** New users only, when the server creates home folders: scope is left blank for the server to fill. */
  createUserDir: boolean;
  /** Byte quota as typed (`10GB`, bytes); blank for none. */
  quota: string;
  /** Entry quota as typed; blank for none. */
  quotaFiles: string;
}

/** A typed byte quota in bytes: blank is 0 (none); NaN when it cannot be read. */
export function quotaFromText(text: string): number {
  if (text.trim() === '') return 0;
  try {
    return parseSize(text);
  } catch {
    return Number.NaN;
  }
}

/** A typed entry quota: blank is 0 (none); NaN unless a whole number. */
export function quotaFilesFromText(text: string): number {
  const t = text.trim();
  if (t === '') return 0;
  return /^\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : Number.NaN;
}

/** `"ls  echo "` → `["ls", "echo"]`; empty input gives an empty list (spec §5). */
export function commandsFromText(text: string): string[] {
  return text.split(' ').filter((s) => s !== '');
}

/** Ticking admin sets every permission and clears lockPassword (spec §4 "Admin flag"). */
export function setPermission(d: UserDraft, name: PermissionName, value: boolean): UserDraft {
  if (name === 'admin' && value) {
    const perm = { ...d.perm };
    for (const p of PERMISSIONS) perm[p] = true;
    return { ...d, perm, lockPassword: false };
  }
  return { ...d, perm: withPermission(d.perm, name, value) };
}

export function draftFrom(u: Partial<UserDto> & Pick<UserDefaults, 'scope' | 'locale' | 'perm' | 'commands'>, createUserDir = false): UserDraft {
  return {
    username: u.username ?? '',
    password: '',
    scope: u.scope,
    locale: u.locale,
    lockPassword: u.lockPassword ?? false,
    perm: { ...u.perm },
    commands: (u.commands ?? []).join(' '),
    rules: (u.rules ?? []).map((r) => ({ ...r, regexp: { raw: r.regexp?.raw ?? '' } })),
    viewMode: u.viewMode ?? 'list',
    singleClick: u.singleClick ?? false,
    hideDotfiles: u.hideDotfiles ?? false,
    dateFormat: u.dateFormat ?? false,
    createUserDir,
    quota: u.quota ? formatSize(u.quota) : '',
    quotaFiles: u.quotaFiles ? String(u.quotaFiles) : '',
  };
}

/** The defaults template as the settings API stores it. */
export function defaultsData(d: UserDraft, base: UserDefaults): UserDefaults {
  return {
    ...base,
    scope: d.scope,
    locale: d.locale,
    viewMode: d.viewMode,
    singleClick: d.singleClick,
    hideDotfiles: d.hideDotfiles,
    dateFormat: d.dateFormat,
    perm: d.perm,
    commands: commandsFromText(d.commands),
    quota: quotaFromText(d.quota),
    quotaFiles: quotaFilesFromText(d.quotaFiles),
  };
}

/** The fields a user form edits, as the users API names them. */
export const USER_FIELDS = ['username', 'password', 'scope', 'locale', 'lockPassword', 'perm', 'commands', 'rules', 'quota', 'quotaFiles'] as const;
export type UserField = (typeof USER_FIELDS)[number];
/** Fields whose change needs the current password (json auth). */
const SENSITIVE = new Set<UserField>(['username', 'password', 'scope', 'lockPassword', 'commands', 'perm']);

/** The API data of a user form. */
export function userData(d: UserDraft): Record<UserField, unknown> {
  return {
    username: d.username.trim(),
    password: d.password,
    scope: d.createUserDir ? '' : d.scope,
    locale: d.locale,
    lockPassword: d.lockPassword,
    perm: d.perm,
    commands: commandsFromText(d.commands),
    rules: completeRules(d.rules),
    quota: quotaFromText(d.quota),
    quotaFiles: quotaFilesFromText(d.quotaFiles),
  };
}

/** The fields that differ between the saved user and the form (a blank password is no change). */
export function changedFields(before: UserDraft, after: UserDraft): UserField[] {
  const a = userData(before);
  const b = userData(after);
  return USER_FIELDS.filter((f) => (f === 'password' ? after.password !== '' : JSON.stringify(a[f]) !== JSON.stringify(b[f])));
}

export function isSensitive(fields: readonly UserField[]): boolean {
  return fields.some((f) => SENSITIVE.has(f));
}
