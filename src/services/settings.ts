/**
 * The one path for settings writes: PUT /api/settings and every CLI command that changes
 * settings (config init/set/import, global rules, event commands) validate and save here,
 * so a check added to `validateSettings` applies to all of them.
 */
import { BadRequestError } from '../errors.ts';
import type { AuthMethod, OidcConfig, Settings, SharedSettings } from '../api/settings.ts';
import { isDeepStrictEqual } from 'node:util';
import { OidcConfigSchema, SettingsSchema } from '../schemas/settings.ts';
import type { Rule } from '../api/user.ts';
import type { Repos } from './context.ts';
import { cleanScope } from './scope.ts';
import { regexError } from './files/rules.ts';
import { PARSE_ONCE } from '../schemas/parse-once.ts';

/** Options of writes that set a command allowlist (users' `commands`, the settings' `shell`). */
export interface AllowlistOptions {
  /**
   * Accept programs that launch other programs (sh, env, xargs, python, ...) in an allowlist.
   * Off unless the admin forces it (`--force` in the CLI).
   */
  allowLaunchers?: boolean;
}

/**
 * Throws 400 for a rule that has no path, or whose regular expression RE2 cannot compile
 * (rules run on RE2: no backreferences or lookarounds; see services/files/rules.ts).
 */
export function checkRules(rules: readonly Rule[], where = 'rules'): void {
  for (const rule of rules) {
    if (rule.regex) {
      if (!rule.regexp.raw) throw new BadRequestError(`a regular expression rule in ${where} is empty`);
      const why = regexError(rule.regexp.raw);
      if (why) throw new BadRequestError(`invalid regular expression in ${where}: ${rule.regexp.raw} (${why})`);
    } else if (!rule.path) throw new BadRequestError(`a path rule in ${where} needs a path`);
  }
}

/** Validates a new settings object; throws 400 naming the first bad field. */
export function parseSettings(raw: unknown): Settings {
  const r = SettingsSchema.safeParse(raw, PARSE_ONCE);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BadRequestError(`invalid settings: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
  }
  checkRules(r.data.rules);
  // The defaults' scope is kept as written ("." is filebrowser's), but must not climb.
  cleanScope(r.data.defaults.scope);
  return { ...r.data, userHomeBasePath: cleanScope(r.data.userHomeBasePath) };
}

/** PUT /api/settings: the settings read and changed by admins over HTTP. */
export class SettingsService {
  constructor(private readonly services: SettingsWriter) {}

  /** The stored settings. */
  get(): Promise<SharedSettings> {
    return this.services.repos.settings.get();
  }

  /**
   * Applies the given keys over the current settings and saves them through saveSettings. Of the
   * auth method and its options only single sign-on (`auth.oidc`) is changed here (the route asks
   * for the admin's password then); the CLI changes the rest.
   */
  async change(changes: Record<string, unknown>, options: AllowlistOptions = {}): Promise<Settings> {
    const current = await this.get();
    const { authMethod: _m, auth: _a, current_password: _p, ...rest } = changes;
    const oidc = requestedOidc(changes, current.auth.oidc);
    const auth = oidc === undefined ? current.auth : { ...current.auth, oidc };
    return saveSettings(this.services, { ...current, ...rest, authMethod: current.authMethod, auth }, options);
  }
}

/**
 * The single sign-on settings a change (`{"auth": {"oidc": … }}`) asks for; undefined when it
 * leaves them as they are (no such key, or the settings as GET showed them sent back).
 */
export function requestedOidc(changes: Record<string, unknown>, current: OidcConfig | null): unknown {
  if (typeof changes.auth !== 'object' || changes.auth === null || !('oidc' in changes.auth)) return undefined;
  const next = mergeOidc(changes.auth.oidc, current);
  const parsed = OidcConfigSchema.nullable().safeParse(next);
  return parsed.success && isDeepStrictEqual(parsed.data, current) ? undefined : next;
}

/**
 * The single sign-on settings a change asks for. The API never shows the client secret, so an
 * empty one keeps the stored secret, but only for the same issuer and client: a secret is never
 * sent to a provider it was not made for.
 */
function mergeOidc(next: unknown, current: OidcConfig | null): unknown {
  if (typeof next !== 'object' || next === null) return next;
  const o = next as Partial<OidcConfig>;
  const same = current && o.issuer === current.issuer && o.clientId === current.clientId;
  return { ...o, clientSecret: o.clientSecret || (same ? current.clientSecret : '') };
}

/** What saveSettings needs from the services (the CLI and the server both have it). */
export interface SettingsWriter {
  repos: Pick<Repos, 'settings'>;
  validateSettings?: (next: Settings, current: SharedSettings, options?: AllowlistOptions) => Promise<void>;
}

/** Parses, validates (the extra checks of the services included) and stores new settings. */
export async function saveSettings(services: SettingsWriter, raw: unknown, options: AllowlistOptions = {}): Promise<Settings> {
  const next = parseSettings(raw);
  const current = (await services.repos.settings.load()) ?? SettingsSchema.parse({}, PARSE_ONCE);
  checkProvisioning(next, current);
  await services.validateSettings?.(next, current, options);
  return services.repos.settings.save(next);
}

const WRITE_PERMISSIONS = ['create', 'rename', 'modify', 'delete'] as const;

/** Whether users created from the defaults (signup, proxy) get the whole root with a write permission. */
export function defaultsGiveRoot(s: SharedSettings): boolean {
  if (s.createUserDir) return false;
  let scope: string;
  try {
    scope = cleanScope(s.defaults.scope);
  } catch {
    return false;
  }
  return scope === '/' && WRITE_PERMISSIONS.some((p) => s.defaults.perm[p] || s.defaults.perm.admin);
}

/** The ways in which users that create themselves would get the whole root with write rights. */
export function rootProvisioners(s: SharedSettings, method: AuthMethod): Array<'signup' | 'proxy authentication' | 'single sign-on'> {
  if (!defaultsGiveRoot(s)) return [];
  const ways: Array<'signup' | 'proxy authentication' | 'single sign-on'> = [];
  if (s.signup) ways.push('signup');
  if (method === 'proxy') ways.push('proxy authentication');
  // Anyone the provider knows is created on first login.
  if (s.auth.oidc && (method === 'json' || method === 'hook')) ways.push('single sign-on');
  return ways;
}

/** What is wrong when signup or proxy users would get the whole root with write rights (undefined when nothing is). */
export function provisioningProblem(s: SharedSettings, method: AuthMethod): string | undefined {
  const ways = rootProvisioners(s, method);
  if (ways.length === 0) return undefined;
  return describeRootProvisioning(ways, s);
}

function describeRootProvisioning(ways: string[], s: SharedSettings): string {
  return (
    `${ways.join(' and ')} would give new users the whole root with write rights ` +
    `(default scope "${s.defaults.scope}", createUserDir off): turn on createUserDir (--create-user-dir), ` +
    'set a narrower default scope (--scope), or take create, rename, modify and delete from the defaults'
  );
}

/**
 * Refuses (400) settings that open a new way for users to create themselves with the whole
 * root and write rights (PROV: advisories 6759-996p-gpj6, j2fc-28fx-hc8q). An instance already
 * like that is warned about at start and may still save unrelated changes.
 */
function checkProvisioning(next: SharedSettings, current: SharedSettings): void {
  const before = new Set(rootProvisioners(current, current.authMethod));
  const opened = rootProvisioners(next, next.authMethod).filter((w) => !before.has(w));
  if (opened.length > 0) throw new BadRequestError(`refused: ${describeRootProvisioning(opened, next)}`);
}
