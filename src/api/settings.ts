/**
 * The global settings contract shared by the server, the CLI and the web UI: types, constants and
 * pure functions only (no zod, no node builtins). The zod schemas are in src/schemas/settings.ts.
 */
import type { TotpPolicy } from './totp.ts';
import type { Permissions, Rule, Sorting, ViewMode } from './user.ts';

/** The file events hooks run around (spec §6), in the order the settings page lists them. */
export const HOOK_EVENTS = ['save', 'copy', 'rename', 'upload', 'delete'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];
/** `before_save`, `after_save`, … : the keys of settings.commands that are hooks. */
export const HOOK_TRIGGERS: string[] = HOOK_EVENTS.flatMap((e) => [`before_${e}`, `after_${e}`]);

export const AUTH_METHODS = ['json', 'noauth', 'proxy', 'hook'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export const THEMES = ['', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/** What a new user starts with (settings.defaults). */
export interface UserDefaults {
  scope: string;
  locale: string;
  viewMode: ViewMode;
  singleClick: boolean;
  redirectAfterCopyMove: boolean;
  sorting: Sorting;
  perm: Permissions;
  commands: string[];
  hideDotfiles: boolean;
  dateFormat: boolean;
  aceEditorTheme: string;
  /** A new user's byte quota (0 = none). */
  quota: number;
  /** A new user's entry quota (0 = none). */
  quotaFiles: number;
}

export interface Branding {
  name: string;
  disableExternal: boolean;
  disableUsedPercentage: boolean;
  files: string;
  theme: Theme;
  color: string;
}

export interface TusSettings {
  chunkSize: number;
  retryCount: number;
}

export interface AuthConfig {
  /** proxy: the trusted header that names the user. */
  header: string;
  /** hook: the external program (argv, split on spaces, no shell). */
  command: string;
  recaptcha: { host: string; key: string; secret: string } | null;
  /** Single sign-on with an OpenID provider; null when off. */
  oidc: OidcConfig | null;
}

/** An OpenID Connect provider fm signs users in with (docs/auth.md). */
export interface OidcConfig {
  /** The issuer URL: https, or http on a loopback address. */
  issuer: string;
  clientId: string;
  /** Never leaves fm: GET /api/settings and the CLI's output leave it out. */
  clientSecret: string;
  /** Space-separated; `openid` is always asked for. */
  scopes: string;
  /** The ID token claim whose value is the fm username, matched exactly. */
  usernameClaim: string;
  /** The claim listing the user's groups; '' = the provider does not decide who is admin. */
  groupsClaim: string;
  /** Members of this group are admins (with a groups claim). */
  adminGroup: string;
  /** Shown on the login page: "Sign in with <name>". */
  name: string;
}

/** Whether an issuer URL is acceptable: https, or http on 127.0.0.0/8 or ::1; the reason when not. */
export function oidcIssuerProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${raw}" is not a URL`;
  }
  if (url.username || url.password || url.search || url.hash) return 'the issuer URL must have no credentials, query or fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'the issuer URL must be https';
  const host = url.hostname;
  const loopback = host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return loopback ? undefined : 'the issuer URL must be https (http only on a loopback address: 127.0.0.0/8, ::1)';
}

/** The settings record as stored and as returned by GET /api/settings. */
export interface Settings {
  signup: boolean;
  hideLoginButton: boolean;
  createUserDir: boolean;
  userHomeBasePath: string;
  minimumPasswordLength: number;
  defaults: UserDefaults;
  authMethod: AuthMethod;
  auth: AuthConfig;
  /** Who must use two-factor login (json method): users without it are led to enrol after logging in. */
  totpRequired: TotpPolicy;
  logoutPage: string;
  rules: Rule[];
  branding: Branding;
  tus: TusSettings;
  shell: string[];
  /** Hooks by trigger (`before_save` …) and any other named command lists. */
  commands: Record<string, string[]>;
  fileMode: number;
  dirMode: number;
  enableExec: boolean;
  /** Commands and hooks may use the network (their sandbox then shares the host's). */
  execNetwork: boolean;
  /** Address space of each command or hook process in bytes (RLIMIT_AS), also the size of its /tmp; 0 = no limit. */
  execMaxMemory: number;
  /** Largest file a command or hook may write in bytes (RLIMIT_FSIZE); 0 = no limit. */
  execMaxFileSize: number;
  /** Processes and threads of one command or hook, everything it starts included; 0 = no limit. */
  execMaxProcesses: number;
  enableThumbnails: boolean;
  resizePreview: boolean;
  /** Largest accepted upload in bytes; 0 means no limit. */
  maxUploadSize: number;
  /** Seconds after its last write at which an unfinished upload is discarded (default 24 h). */
  uploadExpiry: number;
  /** Seconds a deleted item stays in the trash before it is purged (default 30 days); 0 = deletes remove at once. */
  trashRetention: number;
  /** Seconds an audit log entry is kept before the background pruning removes it (default 90 days). */
  auditRetention: number;
}

/** Fills every hook trigger key so clients always see the full map. */
export function normalizeCommands(commands: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of HOOK_TRIGGERS) out[key] = commands[key] ?? [];
  for (const [key, value] of Object.entries(commands)) if (!(key in out)) out[key] = value;
  return out;
}

/** Startup settings injected into index.html (spec §3). */
export interface StartupSettings {
  Name: string;
  DisableExternal: boolean;
  DisableUsedPercentage: boolean;
  BaseURL: string;
  StaticURL: string;
  ReCaptcha: boolean;
  ReCaptchaKey: string;
  ReCaptchaHost: string;
  Signup: boolean;
  Version: string;
  NoAuth: boolean;
  AuthMethod: string;
  LoginPage: boolean;
  LogoutPage: string;
  Theme: string;
  Color: string;
  EnableThumbs: boolean;
  ResizePreview: boolean;
  EnableExec: boolean;
  HideLoginButton: boolean;
  CSS: boolean;
  /** URL of the logo (header, login page): the branding folder's img/logo.svg or img/logo.png, else the default. */
  Logo: string;
  TusSettings: TusSettings;
  /** Path of the WebDAV root for clients (base URL, prefix, "/"), '' when WebDAV is off. */
  WebDAVPath: string;
  /** The single sign-on provider's name for "Sign in with …"; '' when single sign-on is off. */
  OidcName: string;
}

/** A value none of whose parts can be changed through this type (arrays, records and objects all the way down). */
export type DeepReadonly<T> = T extends (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

/** The settings as every request reads them: one object shared by all callers, frozen. */
export type SharedSettings = DeepReadonly<Settings>;
