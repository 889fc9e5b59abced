/**
 * The user flags, shared by `users add`, `users update` and (as the template for new users)
 * `config init` and `config set`. Only the flags that were given are applied; the rest keep
 * the value from the database (the user, or the defaults for a new user).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { UserDefaults } from '../api/settings.ts';
import { LOCALE_CODES, PERMISSION_NAMES, SORT_FIELDS, VIEW_MODES, type Rule, type ViewMode } from '../api/user.ts';
import { parseSize } from '../api/size.ts';

/** The interface languages (spec §1); filebrowser's spellings are accepted as aliases. */
export const LOCALES = LOCALE_CODES;
const LOCALE_ALIASES: Record<string, string> = { uk: 'ua', 'nl-be': 'nlBE', 'pt-br': 'ptBR', 'sv-se': 'svSE', 'zh-cn': 'zhCN', 'zh-tw': 'zhTW' };

/** Permissions with their own `--perm-<name>` flag (admin has `--admin`). */
export const FLAG_PERMISSIONS = PERMISSION_NAMES.filter((p) => p !== 'admin');

/** Parses a locale, accepting any case and `-`/`_` spellings (`pt-BR`, `pt_br`, `ptBR`); '' means the browser's. */
export function parseLocale(raw: string): string {
  const s = raw.trim();
  if (s === '') return '';
  const flat = s.toLowerCase().replace('_', '-');
  if (LOCALE_ALIASES[flat]) return LOCALE_ALIASES[flat];
  const found = LOCALES.find((l) => l.toLowerCase() === flat.replace('-', ''));
  if (!found) throw new InvalidArgumentError(`unknown locale "${raw}" (one of: ${LOCALES.join(', ')})`);
  return found;
}

/** Splits a command list: `git,ls` or `git ls`; '' is the empty list. */
export function parseList(raw: string): string[] {
  return raw
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses `--quota`: a size (`10GiB`, `500MB`, bytes); 0 = no quota. */
export function parseQuota(raw: string): number {
  try {
    return parseSize(raw);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Parses `--quota-files`: a whole number of entries; 0 = no limit. */
export function parseQuotaFiles(raw: string): number {
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`invalid number of files "${raw}" (a whole number; 0 = no limit)`);
  return n;
}

/** The flags of the user template (everything a user has that the defaults also have). */
export function addUserTemplateOptions(cmd: Command): Command {
  cmd.option('--admin', 'admin: every permission, user management and settings').option('--no-admin', 'not an admin');
  for (const p of FLAG_PERMISSIONS) {
    cmd.option(`--perm-${p}`, `grant the ${p} permission`).option(`--no-perm-${p}`, `revoke the ${p} permission`);
  }
  return cmd
    .option('--scope <dir>', 'the folder under the root shown as / (e.g. /alice)')
    .addOption(new Option('--locale <locale>', 'interface language (e.g. en, de, ptBR; "" = the browser\'s)').argParser(parseLocale))
    .addOption(new Option('--view-mode <mode>', 'listing view').choices([...VIEW_MODES]))
    .option('--single-click', 'open items with a single click')
    .option('--no-single-click', 'open items with a double click')
    .option('--redirect-after-copy-move', 'go to the destination after a copy or move')
    .option('--no-redirect-after-copy-move', 'stay in the folder after a copy or move')
    .addOption(new Option('--sorting-by <field>', 'sort listings by this field').choices([...SORT_FIELDS]))
    .option('--sorting-asc', 'sort ascending (A to Z, small to large, old to new)')
    .option('--no-sorting-asc', 'sort descending')
    .addOption(new Option('--commands <list>', 'commands allowed to run (comma- or space-separated; "" for none)').argParser(parseList))
    .option('--hide-dotfiles', 'hide files and folders whose name starts with a dot')
    .option('--no-hide-dotfiles', 'show dotfiles')
    .option('--date-format', 'show exact dates instead of relative times')
    .option('--no-date-format', 'show relative times')
    .option('--ace-editor-theme <theme>', 'editor theme name')
    .addOption(new Option('--quota <size>', 'byte quota over the scope (e.g. 10GiB, 500MB; 0 = none)').argParser(parseQuota))
    .addOption(new Option('--quota-files <n>', 'most files, folders and links in the scope (0 = no limit)').argParser(parseQuotaFiles));
}

export function addLockPasswordOption(cmd: Command): Command {
  return cmd.option('--lock-password', 'forbid the user to change their password').option('--no-lock-password', 'let the user change their password');
}

/** The values commander collected for the user flags (undefined = not given). */
export interface UserFlagValues {
  admin?: boolean;
  scope?: string;
  locale?: string;
  viewMode?: ViewMode;
  singleClick?: boolean;
  redirectAfterCopyMove?: boolean;
  sortingBy?: string;
  sortingAsc?: boolean;
  commands?: string[];
  hideDotfiles?: boolean;
  dateFormat?: boolean;
  aceEditorTheme?: string;
  lockPassword?: boolean;
  quota?: number;
  quotaFiles?: number;
  [perm: `perm${string}`]: boolean | undefined;
}

/** What the user flags can change: a new user's defaults, plus a user's lock and rules. */
export interface UserTemplateFields extends UserDefaults {
  lockPassword?: boolean;
  rules?: Rule[];
}

/**
 * The fields the given flags change, computed on top of `base` (the stored user, or the
 * defaults). Whole objects (perm, sorting) are returned merged, so they can replace the stored ones.
 */
export function userChanges(base: UserTemplateFields, o: UserFlagValues): Partial<UserTemplateFields> {
  const out: Partial<UserTemplateFields> = {};
  const perm = { ...base.perm };
  let permChanged = false;
  if (o.admin !== undefined) {
    perm.admin = o.admin;
    permChanged = true;
  }
  for (const p of FLAG_PERMISSIONS) {
    const v = o[`perm${p[0].toUpperCase()}${p.slice(1)}`];
    if (v !== undefined) {
      perm[p] = v;
      permChanged = true;
    }
  }
  if (permChanged) out.perm = perm;
  if (o.scope !== undefined) out.scope = o.scope;
  if (o.locale !== undefined) out.locale = o.locale;
  if (o.viewMode !== undefined) out.viewMode = o.viewMode;
  if (o.singleClick !== undefined) out.singleClick = o.singleClick;
  if (o.redirectAfterCopyMove !== undefined) out.redirectAfterCopyMove = o.redirectAfterCopyMove;
  if (o.sortingBy !== undefined || o.sortingAsc !== undefined) {
    out.sorting = { by: o.sortingBy ?? base.sorting.by, asc: o.sortingAsc ?? base.sorting.asc };
  }
  if (o.commands !== undefined) out.commands = o.commands;
  if (o.hideDotfiles !== undefined) out.hideDotfiles = o.hideDotfiles;
  if (o.dateFormat !== undefined) out.dateFormat = o.dateFormat;
  if (o.aceEditorTheme !== undefined) out.aceEditorTheme = o.aceEditorTheme;
  if (o.lockPassword !== undefined) out.lockPassword = o.lockPassword;
  if (o.quota !== undefined) out.quota = o.quota;
  if (o.quotaFiles !== undefined) out.quotaFiles = o.quotaFiles;
  return out;
}
