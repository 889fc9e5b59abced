/**
 * Import and export documents, in filebrowser's JSON shapes so that an instance can move
 * from filebrowser to fm (and between fm instances):
 * - `config export` writes `{settings, server, auther}` like filebrowser's `config export`;
 * - `users export` writes the array of users (with bcrypt hashes) like `users export`.
 * Parsing checks everything before anything is written; the commands write all or nothing.
 */
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { SharedSettings } from '../api/settings.ts';
import { PERMISSION_NAMES, type UserData } from '../api/user.ts';
import { UserDataSchema } from '../schemas/user.ts';
import { BadRequestError, ConflictError, UsageError } from '../errors.ts';
import { isBcryptHash } from '../services/passwords.ts';
import { cleanScope } from '../services/scope.ts';
import { checkRules } from '../services/settings.ts';
import { userData, type UserRecord } from '../storage/repos/users.ts';
import { parseLocale } from './userflags.ts';

/** Parses an import document: JSON, or YAML for .yml/.yaml files and anything not JSON. */
export function parseDocument(text: string, name: string): unknown {
  const trimmed = text.trim();
  if (!trimmed) throw new BadRequestError(`${name} is empty`);
  const yamlFile = /\.ya?ml$/i.test(name);
  if (!yamlFile && /^[[{]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch (err) {
      throw new BadRequestError(`${name} is not valid JSON: ${(err as Error).message}`);
    }
  }
  try {
    return parseYaml(trimmed);
  } catch (err) {
    throw new BadRequestError(`${name} is not valid JSON or YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** Serialises an export: YAML for .yml/.yaml files, else JSON. */
export function serialiseDocument(data: unknown, name: string): string {
  if (/\.ya?ml$/i.test(name)) return stringifyYaml(data);
  return `${JSON.stringify(data, null, 2)}\n`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// --- settings ---------------------------------------------------------------------------

/** The fields of the `settings` part (filebrowser's names; fm's extra fields are ignored by filebrowser). */
const SETTINGS_FIELDS = [
  'signup',
  'hideLoginButton',
  'createUserDir',
  'userHomeBasePath',
  'defaults',
  'authMethod',
  'totpRequired',
  'logoutPage',
  'branding',
  'tus',
  'commands',
  'shell',
  'rules',
  'minimumPasswordLength',
  'fileMode',
  'dirMode',
  'maxUploadSize',
  'uploadExpiry',
  'execNetwork',
  'execMaxMemory',
  'execMaxFileSize',
  'execMaxProcesses',
  'trashRetention',
  'auditRetention',
] as const;
/** Settings that filebrowser keeps in its `server` record. */
const SERVER_FIELDS = ['enableThumbnails', 'resizePreview', 'enableExec'] as const;
/** filebrowser fields fm reads elsewhere or on purpose not at all (the signing key is kept). */
const QUIET_FIELDS = new Set(['key', 'hideDotfiles']);

export interface ConfigDocument {
  settings: Record<string, unknown>;
  server: Record<string, unknown>;
  auther: Record<string, unknown>;
}

/** The `config export` document of fm's settings. */
export function exportConfig(s: SharedSettings): ConfigDocument {
  const settings: Record<string, unknown> = {};
  for (const k of SETTINGS_FIELDS) settings[k] = s[k];
  const server: Record<string, unknown> = {};
  for (const k of SERVER_FIELDS) server[k] = s[k];
  return {
    settings: structuredClone(settings),
    server,
    auther: {
      recaptcha: s.auth.recaptcha ? { ...s.auth.recaptcha } : null,
      header: s.auth.header,
      command: s.auth.command,
      oidc: s.auth.oidc ? { ...s.auth.oidc } : null,
    },
  };
}

export interface ParsedConfig {
  /** Raw settings for saveSettings (which validates them). */
  settings: Record<string, unknown>;
  /** Fields of the document fm does not keep in the database (shown as a warning). */
  ignored: string[];
}

/**
 * Reads a `config export` of fm or filebrowser (or a bare settings object such as
 * `fm config cat --json`). Fields missing from the document take their defaults.
 */
export function parseConfigImport(data: unknown): ParsedConfig {
  if (!isObject(data)) throw new BadRequestError('expected a JSON object with "settings", "server" and "auther"');
  const ignored: string[] = [];
  const wrapped = 'settings' in data;
  const rawSettings = wrapped ? data.settings : data;
  if (!isObject(rawSettings)) throw new BadRequestError('"settings" must be an object');
  const server = wrapped ? (data.server ?? {}) : {};
  const auther = wrapped ? (data.auther ?? {}) : isObject(data.auth) ? data.auth : {};
  if (!isObject(server)) throw new BadRequestError('"server" must be an object');
  if (!isObject(auther)) throw new BadRequestError('"auther" must be an object');
  if (wrapped) for (const k of Object.keys(data)) if (!['settings', 'server', 'auther'].includes(k)) ignored.push(k);

  const known = new Set<string>([...SETTINGS_FIELDS, ...SERVER_FIELDS, 'auth']);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rawSettings)) {
    if (known.has(k)) out[k] = v;
    else if (!QUIET_FIELDS.has(k)) ignored.push(`settings.${k}`);
  }
  for (const [k, v] of Object.entries(server)) {
    if ((SERVER_FIELDS as readonly string[]).includes(k)) out[k] = v;
    else if (v !== '' && v !== false && v !== null && v !== 0) ignored.push(`server.${k}`);
  }
  delete out.auth;
  const rc = auther.recaptcha;
  if (rc !== undefined && rc !== null && !isObject(rc)) throw new BadRequestError('"auther.recaptcha" must be an object or null');
  out.auth = {
    header: auther.header ?? '',
    command: auther.command ?? '',
    recaptcha: rc ? { host: rc.host || 'https://www.google.com', key: rc.key ?? '', secret: rc.secret ?? '' } : null,
    // fm's own; filebrowser has none (schema-checked by saveSettings).
    oidc: auther.oidc ?? null,
  };
  if (Array.isArray(out.rules)) out.rules = out.rules.map(normaliseRule);
  // filebrowser applies the tus defaults when both values are 0.
  if (isObject(out.tus) && out.tus.chunkSize === 0 && out.tus.retryCount === 0) delete out.tus;
  if (isObject(out.defaults)) out.defaults = normaliseUserish(out.defaults);
  return { settings: out, ignored };
}

/** filebrowser writes `"regexp": null` for path rules. */
function normaliseRule(rule: unknown): unknown {
  if (!isObject(rule)) return rule;
  return { ...rule, regexp: rule.regexp === null || rule.regexp === undefined ? { raw: '' } : rule.regexp };
}

function normaliseUserish(u: Record<string, unknown>): Record<string, unknown> {
  const out = { ...u };
  if (typeof out.locale === 'string') {
    try {
      out.locale = parseLocale(out.locale);
    } catch {
      // an unknown locale is kept: the UI falls back to English
    }
  }
  if (isObject(out.perm)) {
    const unknown = Object.keys(out.perm).filter((k) => !(PERMISSION_NAMES as readonly string[]).includes(k));
    if (unknown.length) throw new BadRequestError(`unknown permission ${unknown.map((k) => `"${k}"`).join(', ')}`);
  }
  if (Array.isArray(out.rules)) out.rules = out.rules.map(normaliseRule);
  return out;
}

// --- users ------------------------------------------------------------------------------

/** One user of a `users export` (filebrowser's User JSON, password = bcrypt hash). */
export type ExportedUser = UserData;

export function exportUsers(users: UserRecord[]): ExportedUser[] {
  return users.map(userData);
}

/**
 * Validates every user of a `users export` (fm or filebrowser). Ids of 0 or missing mean
 * "assign one". Passwords must be bcrypt hashes. Errors name the entry.
 */
export function parseUsersImport(data: unknown, defaults: Partial<UserData> = {}): UserData[] {
  const list = isObject(data) && Array.isArray(data.users) ? data.users : data;
  if (!Array.isArray(list)) throw new BadRequestError('expected a JSON array of users');
  if (list.length === 0) throw new BadRequestError('the file holds no users');
  return list.map((raw, i) => {
    const label = isObject(raw) && typeof raw.username === 'string' ? `user #${i + 1} ("${raw.username}")` : `user #${i + 1}`;
    try {
      if (!isObject(raw)) throw new BadRequestError('not an object');
      if (typeof raw.username !== 'string' || !raw.username.trim()) throw new BadRequestError('the username is missing');
      if (typeof raw.password !== 'string' || !isBcryptHash(raw.password)) throw new BadRequestError('the password is not a bcrypt hash');
      if (raw.id !== undefined && raw.id !== null && (typeof raw.id !== 'number' || !Number.isSafeInteger(raw.id) || raw.id < 0)) {
        throw new BadRequestError('the id is not a whole number');
      }
      const r = UserDataSchema.safeParse({ ...defaults, ...normaliseUserish(raw), id: raw.id ?? 0 });
      if (!r.success) {
        const issue = r.error.issues[0];
        throw new BadRequestError(`${issue?.path.join('.') || 'data'}: ${issue?.message ?? 'invalid'}`);
      }
      const u = r.data;
      if (u.perm.admin) u.perm = { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true };
      if (u.perm.share && !u.perm.download) throw new BadRequestError('share permission requires download permission');
      checkRules(u.rules, 'the rules');
      return { ...u, scope: cleanScope(u.scope || '.') };
    } catch (err) {
      throw new BadRequestError(`${label}: ${(err as Error).message}`);
    }
  });
}

/**
 * The complete user set after an import. Imported users keep their ids when free; a taken
 * id is replaced with --overwrite (or everything with --replace) and is an error otherwise.
 * Imported users get a new session epoch, so that no token issued before can be used for them.
 */
export function planImport(
  current: UserRecord[],
  incoming: Array<Omit<UserRecord, 'sessionEpoch' | 'updatedAt'>>,
  opts: { overwrite: boolean; replace: boolean },
): { records: UserRecord[]; overwritten: number } {
  const now = Math.floor(Date.now() / 1000);
  const previous = new Map(current.map((u) => [u.id, u]));
  const result = new Map<number, UserRecord>(opts.replace ? [] : current.map((u) => [u.id, u]));
  let overwritten = 0;
  const claimed = new Set<number>();
  let next = Math.max(0, ...current.map((u) => u.id), ...incoming.map((u) => u.id)) + 1;
  for (const u of incoming) {
    let id = u.id;
    if (id > 0 && claimed.has(id)) throw new UsageError(`user id ${id} appears twice in the import`);
    if (id > 0 && !opts.replace && previous.has(id)) {
      if (!opts.overwrite) {
        throw new UsageError(`user id ${id} is already taken by "${previous.get(id)!.username}" (use --overwrite or --replace)`);
      }
      overwritten++;
    }
    if (id <= 0) id = next++;
    claimed.add(id);
    const prev = previous.get(id);
    result.set(id, { ...u, id, sessionEpoch: Math.max(now, (prev?.sessionEpoch ?? 0) + 1), updatedAt: now });
  }
  const records = [...result.values()].sort((a, b) => a.id - b.id);
  const byName = new Map<string, UserRecord>();
  for (const r of records) {
    const key = r.username.normalize('NFC').trim().toLowerCase();
    const other = byName.get(key);
    if (other) throw new ConflictError(`username "${r.username}" would belong to two users (ids ${other.id} and ${r.id})`);
    byName.set(key, r);
  }
  return { records, overwritten };
}
