/**
 * The settings flags of `config init` and `config set`, and how they change a settings
 * record. Validation of the result is saveSettings' job (services/settings.ts).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { AUTH_METHODS, type AuthMethod, oidcIssuerProblem, type OidcConfig, type Settings } from '../api/settings.ts';
import { TOTP_POLICIES, type TotpPolicy } from '../api/totp.ts';
import { UsageError } from '../errors.ts';
import { parseSize } from '../api/size.ts';
import { parseDuration } from '../services/duration.ts';
import { addUserTemplateOptions, userChanges, type UserFlagValues } from './userflags.ts';

function intIn(min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return n;
  };
}

function size(min: number) {
  return (raw: string): number => {
    let n: number;
    try {
      n = parseSize(raw);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    if (n < min) throw new InvalidArgumentError(`the size must be at least ${min} bytes`);
    return n;
  };
}

/** A duration such as 24h, 90m or 3600 (seconds), in whole seconds. */
function duration(raw: string): number {
  try {
    return parseDuration(raw);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** The trash retention: a duration, or 0 (the trash off). */
function retention(raw: string): number {
  return /^\s*0+\s*[a-z]*\s*$/i.test(raw) ? 0 : duration(raw);
}

/** Parses a file mode written in octal: `0640`, `640`, `0o640`. */
export function parseMode(raw: string): number {
  const m = /^\s*(?:0o?)?([0-7]{1,3})\s*$/i.exec(raw);
  if (!m) throw new InvalidArgumentError(`expected an octal mode such as 0640, got "${raw}"`);
  return parseInt(m[1], 8);
}

/** Splits a shell command into words: `bash -c` → ["bash", "-c"]; "" disables the shell. */
export function parseWords(raw: string): string[] {
  return raw.split(/\s+/).filter(Boolean);
}

function issuer(raw: string): string {
  const problem = oidcIssuerProblem(raw);
  if (problem) throw new InvalidArgumentError(problem);
  return raw;
}

function theme(raw: string): '' | 'light' | 'dark' {
  const t = raw.trim().toLowerCase();
  if (t === 'light' || t === 'dark') return t;
  if (t === 'auto' || t === '') return '';
  throw new InvalidArgumentError(`expected light, dark or auto, got "${raw}"`);
}

/** Adds every settings flag (and the new-user template flags) to `config init` / `config set`. */
export function addSettingsOptions(cmd: Command): Command {
  cmd
    .option('--signup', 'let visitors create an account')
    .option('--no-signup', 'only admins create accounts')
    .option('--hide-login-button', 'hide the login button on public pages')
    .option('--no-hide-login-button', 'show the login button')
    .option('--create-user-dir', 'give each new user a home folder under the user home base path')
    .option('--no-create-user-dir', 'new users get the default scope')
    .option('--user-home-base-path <path>', 'where home folders are created (default /users)')
    .addOption(new Option('--min-password-length <n>', 'shortest password accepted').argParser(intIn(1, 1024)))
    .addOption(new Option('--auth-method <method>', 'how users log in').choices([...AUTH_METHODS]))
    .addOption(
      new Option('--totp-required <who>', 'json auth: who must use two-factor login (others are led to enrol after login)').choices([...TOTP_POLICIES]),
    )
    .option('--auth-header <name>', 'proxy auth: the header that names the user')
    .option('--auth-command <command>', 'hook auth: the program to run (split on spaces, no shell)')
    .option('--recaptcha-host <url>', 'json auth: the reCAPTCHA server')
    .option('--recaptcha-key <key>', 'json auth: the reCAPTCHA site key')
    .option('--recaptcha-secret <secret>', 'json auth: the reCAPTCHA secret (turns reCAPTCHA on)')
    .option('--no-recaptcha', 'json auth: turn reCAPTCHA off')
    .addOption(new Option('--oidc-issuer <url>', 'single sign-on: the OpenID provider (https; http only on 127.0.0.0/8 or ::1)').argParser(issuer))
    .option('--oidc-client-id <id>', 'single sign-on: the client id registered at the provider')
    .option('--oidc-client-secret <secret>', 'single sign-on: the client secret')
    .option('--oidc-scopes <scopes>', 'single sign-on: scopes asked for, space-separated (default "openid profile email")')
    .option('--oidc-username-claim <claim>', 'single sign-on: the claim that names the fm user, exactly (default preferred_username)')
    .option('--oidc-groups-claim <claim>', 'single sign-on: the claim listing the groups ("" = groups do not decide admin)')
    .option('--oidc-admin-group <group>', 'single sign-on: members of this group are admins (with --oidc-groups-claim)')
    .option('--oidc-name <name>', 'single sign-on: the provider\'s name on the login page ("Sign in with <name>")')
    .option('--no-oidc', 'turn single sign-on off')
    .option('--logout-page <url>', 'where to go after logging out (default /login)')
    .option('--branding-name <name>', 'instance name shown in the title and sidebar')
    .addOption(new Option('--branding-theme <theme>', 'light, dark or auto').argParser(theme))
    .option('--branding-color <color>', 'accent colour (CSS colour)')
    .option('--branding-files <dir>', 'folder with a custom logo and custom.css')
    .option('--branding-disable-external', 'hide links to external sites')
    .option('--no-branding-disable-external', 'show links to external sites')
    .option('--branding-disable-used-percentage', 'hide the used-disk bar')
    .option('--no-branding-disable-used-percentage', 'show the used-disk bar')
    .addOption(new Option('--tus-chunk-size <size>', 'upload chunk size, e.g. 10MB, 1.5GiB').argParser(size(1)))
    .addOption(new Option('--tus-retry-count <n>', 'upload retries per chunk').argParser(intIn(0, 1000)))
    .addOption(new Option('--max-upload-size <size>', 'largest upload accepted, e.g. 4GB (0 = no limit)').argParser(size(0)))
    .addOption(new Option('--upload-expiry <duration>', 'unfinished uploads are removed after this long without a write, e.g. 24h').argParser(duration))
    .addOption(new Option('--audit-retention <duration>', 'audit log entries are removed after this long, e.g. 90d (default)').argParser(duration))
    .addOption(new Option('--shell <command>', 'shell that runs command lines, e.g. "bash -c" ("" = none: argv only)').argParser(parseWords))
    .option('--exec', 'enable command execution (commands and hooks)')
    .option('--no-exec', 'disable command execution')
    .option('--exec-network', 'let commands and hooks use the network')
    .option('--no-exec-network', 'commands and hooks run without network (default)')
    .addOption(new Option('--exec-max-memory <size>', 'memory limit of each command process, e.g. 1GiB (0 = none)').argParser(size(0)))
    .addOption(new Option('--exec-max-file-size <size>', 'largest file a command may write, e.g. 1GiB (0 = none)').argParser(size(0)))
    .addOption(new Option('--exec-max-processes <n>', 'processes and threads of one command (0 = no limit)').argParser(intIn(0, 1_000_000)))
    .option('--thumbnails', 'generate image thumbnails')
    .option('--no-thumbnails', 'serve images without thumbnails')
    .option('--resize-preview', 'resize large images for the preview')
    .option('--no-resize-preview', 'preview images at full size')
    .addOption(new Option('--file-mode <mode>', 'mode of created files, octal (default 0640)').argParser(parseMode))
    .addOption(new Option('--dir-mode <mode>', 'mode of created folders, octal (default 0750)').argParser(parseMode))
    .addOption(new Option('--trash-retention <duration>', 'deleted items stay in the trash this long, e.g. 30d (0 = delete at once)').argParser(retention))
    .option('--force', 'accept programs that launch other programs (sh, env, python ...) in the shell or allowlists');
  return addUserTemplateOptions(cmd);
}

export interface SettingsFlagValues extends UserFlagValues {
  signup?: boolean;
  hideLoginButton?: boolean;
  createUserDir?: boolean;
  userHomeBasePath?: string;
  minPasswordLength?: number;
  authMethod?: AuthMethod;
  totpRequired?: TotpPolicy;
  authHeader?: string;
  authCommand?: string;
  recaptchaHost?: string;
  recaptchaKey?: string;
  recaptchaSecret?: string;
  recaptcha?: boolean;
  oidcIssuer?: string;
  oidcClientId?: string;
  oidcClientSecret?: string;
  oidcScopes?: string;
  oidcUsernameClaim?: string;
  oidcGroupsClaim?: string;
  oidcAdminGroup?: string;
  oidcName?: string;
  oidc?: boolean;
  logoutPage?: string;
  brandingName?: string;
  brandingTheme?: '' | 'light' | 'dark';
  brandingColor?: string;
  brandingFiles?: string;
  brandingDisableExternal?: boolean;
  brandingDisableUsedPercentage?: boolean;
  tusChunkSize?: number;
  tusRetryCount?: number;
  maxUploadSize?: number;
  uploadExpiry?: number;
  auditRetention?: number;
  shell?: string[];
  exec?: boolean;
  execNetwork?: boolean;
  execMaxMemory?: number;
  execMaxFileSize?: number;
  execMaxProcesses?: number;
  thumbnails?: boolean;
  resizePreview?: boolean;
  fileMode?: number;
  dirMode?: number;
  force?: boolean;
  trashRetention?: number;
}

/**
 * Applies the given flags to a copy of `current`; returns it and whether any flag was given.
 * `recaptchaGiven` and `oidcGiven` tell whether `--no-recaptcha` and `--no-oidc` were really
 * given (commander defaults a lone negated flag to true).
 */
export function applySettingsFlags(current: Settings, o: SettingsFlagValues, recaptchaGiven: boolean, oidcGiven = false): { next: Settings; changed: boolean } {
  const next: Settings = structuredClone(current);
  let changed = false;
  /** Sets one field of `next` (or of an object inside it) when its flag was given. */
  const assign = <T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined) => {
    if (value === undefined) return;
    target[key] = value;
    changed = true;
  };
  assign(next, 'signup', o.signup);
  assign(next, 'hideLoginButton', o.hideLoginButton);
  assign(next, 'createUserDir', o.createUserDir);
  assign(next, 'userHomeBasePath', o.userHomeBasePath);
  assign(next, 'minimumPasswordLength', o.minPasswordLength);
  assign(next, 'authMethod', o.authMethod);
  assign(next, 'totpRequired', o.totpRequired);
  assign(next, 'logoutPage', o.logoutPage);
  assign(next, 'shell', o.shell);
  assign(next, 'enableExec', o.exec);
  assign(next, 'execNetwork', o.execNetwork);
  assign(next, 'execMaxMemory', o.execMaxMemory);
  assign(next, 'execMaxFileSize', o.execMaxFileSize);
  assign(next, 'execMaxProcesses', o.execMaxProcesses);
  assign(next, 'enableThumbnails', o.thumbnails);
  assign(next, 'resizePreview', o.resizePreview);
  assign(next, 'fileMode', o.fileMode);
  assign(next, 'dirMode', o.dirMode);
  assign(next, 'maxUploadSize', o.maxUploadSize);
  assign(next, 'uploadExpiry', o.uploadExpiry);
  assign(next, 'trashRetention', o.trashRetention);
  assign(next, 'auditRetention', o.auditRetention);

  const auth = next.auth;
  assign(auth, 'header', o.authHeader);
  assign(auth, 'command', o.authCommand);
  if (recaptchaGiven && o.recaptcha === false) {
    auth.recaptcha = null;
    changed = true;
  }
  for (const [key, value] of [
    ['host', o.recaptchaHost],
    ['key', o.recaptchaKey],
    ['secret', o.recaptchaSecret],
  ] as const) {
    if (value === undefined) continue;
    if (recaptchaGiven && o.recaptcha === false) throw new UsageError('--no-recaptcha and --recaptcha-* cannot be combined');
    auth.recaptcha ??= { host: 'https://www.google.com', key: '', secret: '' };
    assign(auth.recaptcha, key, value);
  }

  changed = applyOidcFlags(auth, o, oidcGiven) || changed;

  const b = next.branding;
  assign(b, 'name', o.brandingName);
  assign(b, 'theme', o.brandingTheme);
  assign(b, 'color', o.brandingColor);
  assign(b, 'files', o.brandingFiles);
  assign(b, 'disableExternal', o.brandingDisableExternal);
  assign(b, 'disableUsedPercentage', o.brandingDisableUsedPercentage);
  assign(next.tus, 'chunkSize', o.tusChunkSize);
  assign(next.tus, 'retryCount', o.tusRetryCount);

  const defaults = userChanges(next.defaults, o);
  if (Object.keys(defaults).length > 0) {
    const { lockPassword: _l, rules: _r, ...rest } = defaults;
    next.defaults = { ...next.defaults, ...rest };
    changed = true;
  }

  if (next.authMethod === 'hook' && !next.auth.command.trim()) {
    throw new UsageError('the hook auth method needs a program: add --auth-command');
  }
  return { next, changed };
}

const OIDC_FLAGS = {
  issuer: 'oidcIssuer',
  clientId: 'oidcClientId',
  clientSecret: 'oidcClientSecret',
  scopes: 'oidcScopes',
  usernameClaim: 'oidcUsernameClaim',
  groupsClaim: 'oidcGroupsClaim',
  adminGroup: 'oidcAdminGroup',
  name: 'oidcName',
} as const satisfies Record<keyof OidcConfig, keyof SettingsFlagValues>;

/** Applies the --oidc-* flags to `auth`; true when any was given. The first setting needs issuer and client id. */
function applyOidcFlags(auth: Settings['auth'], o: SettingsFlagValues, oidcGiven: boolean): boolean {
  const given = (Object.entries(OIDC_FLAGS) as [keyof OidcConfig, keyof SettingsFlagValues][]).filter(([, flag]) => o[flag] !== undefined);
  if (oidcGiven && o.oidc === false) {
    if (given.length) throw new UsageError('--no-oidc and --oidc-* cannot be combined');
    auth.oidc = null;
    return true;
  }
  if (!given.length) return false;
  const next: OidcConfig = auth.oidc ?? {
    issuer: '',
    clientId: '',
    clientSecret: '',
    scopes: 'openid profile email',
    usernameClaim: 'preferred_username',
    groupsClaim: '',
    adminGroup: '',
    name: '',
  };
  for (const [key, flag] of given) next[key] = o[flag] as string;
  if (!next.issuer || !next.clientId) throw new UsageError('single sign-on needs --oidc-issuer and --oidc-client-id');
  if (next.adminGroup && !next.groupsClaim) throw new UsageError('--oidc-admin-group needs --oidc-groups-claim');
  auth.oidc = next;
  return true;
}
