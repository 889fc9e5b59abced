/**
 * Login methods (json, noauth, proxy, hook), throttling and the effective auth method.
 * Tokens themselves are in tokens.ts.
 */
import type net from 'node:net';
import { BadRequestError, ForbiddenError } from '../errors.ts';
import type { AuthMethod, SharedSettings } from '../api/settings.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import { exactName, exactUser, provisionOnce } from './provision.ts';
import type { Logger, Repos } from './context.ts';
import { checkPassword } from './passwords.ts';
import { verifyRecaptcha } from './recaptcha.ts';
import { cleanScope } from './scope.ts';
import { LOGIN_THROTTLE, SIGNUP_THROTTLE, Throttle, sleep } from './throttle.ts';
import type { UserService } from './users.ts';
import type { ExecService } from './exec/index.ts';
import { type SecondFactor, secondFactorError, type TotpService } from './totp.ts';
import { addressKey, buildBlockList, isInList } from './addresses.ts';

export interface AuthOptions {
  /** `fm serve --noauth`: every request acts as user 1. */
  noauth: boolean;
  /** `fm serve --auth-header`: proxy auth with this header (overrides the stored method). */
  authHeader?: string;
  /** Addresses or CIDRs allowed to set the proxy header and to forward client addresses. */
  trustedProxies: string[];
  /** Sign-ups accepted per client address and hour (default 10; 0 = no limit). */
  signupLimit?: number;
}

/** What proxy authentication reads from a request. */
export interface ProxyRequest {
  /** The socket's peer: the proxy itself, never a forwarded address. */
  peer: string;
  /**
   * The request's headers with every value kept (Node's `headersDistinct`), so that a header
   * sent twice is seen as two values, not one joined string.
   */
  headers: Record<string, string | string[] | undefined>;
}

export interface LoginRequest {
  username: string;
  password: string;
  recaptcha?: string;
  /** A two-factor code or a recovery code (json method, users with two-factor login on). */
  otp?: string;
  /** The client's address (behind a trusted proxy, the address it forwarded). */
  ip: string;
  /** The socket's peer (default: `ip`). */
  peer?: string;
  headers: ProxyRequest['headers'];
}

export class AuthService {
  readonly throttle: Throttle;
  /** Bounds how many accounts one address can sign up (every attempt counts). */
  readonly signupThrottle: Throttle;
  private readonly trusted: net.BlockList;
  /** isTrustedProxy's answers by address. */
  private readonly trustedAddresses = new Map<string, boolean>();

  constructor(
    private readonly repos: Repos,
    private readonly users: UserService,
    readonly options: AuthOptions,
    private readonly log: Logger,
    private readonly exec: ExecService,
    private readonly totp: TotpService,
  ) {
    this.trusted = buildBlockList(options.trustedProxies);
    const limit = options.signupLimit ?? SIGNUP_THROTTLE.lockAfter;
    const counts = repos.db.cluster?.throttle;
    this.throttle = new Throttle(LOGIN_THROTTLE, counts && { counts, scope: 'login' });
    this.signupThrottle = new Throttle({ ...SIGNUP_THROTTLE, lockAfter: limit > 0 ? limit : Infinity }, counts && { counts, scope: 'signup' });
  }

  /**
   * The throttle keys of a login attempt: the username at this client address, and the address.
   * Never the username alone: anyone could then lock a user out from anywhere.
   */
  static throttleKeys(username: string, ip: string): string[] {
    const address = addressKey(ip);
    return [`user:${username.normalize('NFC').toLowerCase().slice(0, 256)}@${address}`, `ip:${address}`];
  }

  /** The method in force: flags override the stored setting. */
  method(settings: SharedSettings): AuthMethod {
    if (this.options.noauth) return 'noauth';
    if (this.options.authHeader) return 'proxy';
    return settings.authMethod;
  }

  /** The header that names the user, as configured. */
  proxyHeader(settings: SharedSettings): string {
    return this.options.authHeader || settings.auth.header || 'X-Forwarded-User';
  }

  isTrustedProxy(ip: string): boolean {
    // Asked on every request for the same few peers; the list is fixed at start. Forwarded hops
    // are the client's text: only address-sized keys are kept, at most 10,000 of them.
    let trusted = this.trustedAddresses.get(ip);
    if (trusted === undefined) {
      trusted = isInList(this.trusted, ip);
      if (ip.length > 45) return trusted;
      if (this.trustedAddresses.size >= 10_000) this.trustedAddresses.clear();
      this.trustedAddresses.set(ip, trusted);
    }
    return trusted;
  }

  /**
   * The user named by a trusted proxy header, created on first sight; undefined if absent or
   * untrusted. The name must be exactly a user's (after NFC): `ADMIN` is not `admin`. A header
   * sent twice is refused, never joined into one name.
   */
  async proxyUser(settings: SharedSettings, req: ProxyRequest): Promise<UserRecord | undefined> {
    const header = this.proxyHeader(settings);
    const raw = req.headers[header.toLowerCase()];
    const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
    if (values.length === 0 || !values[0]) return undefined;
    if (!this.isTrustedProxy(req.peer)) {
      this.log.warn(`auth: ignored proxy header from untrusted address ${req.peer}`);
      return undefined;
    }
    if (values.length > 1) throw new BadRequestError(`the ${header} header came more than once: the proxy must send it exactly once`);
    const name = exactName(values[0]);
    if (!name) throw new ForbiddenError(`the ${header} header must name a user exactly (no surrounding spaces)`);
    const existing = await exactUser(this.repos, name);
    if (existing === 'different') throw new ForbiddenError(`"${name}" differs from an existing user name only in case: names must match exactly`);
    if (existing) return existing;
    return provisionOnce(this.repos, this.users, settings, name, {});
  }

  /** Checks credentials per the auth method; throttled per username and per address. */
  async login(req: LoginRequest): Promise<UserRecord> {
    const settings = await this.repos.settings.get();
    const method = this.method(settings);
    if (method === 'noauth') {
      const user = await this.repos.users.get(1);
      if (!user) throw new ForbiddenError('no-auth mode needs user 1');
      return user;
    }
    if (method === 'proxy') {
      const user = await this.proxyUser(settings, { peer: req.peer ?? req.ip, headers: req.headers });
      if (!user) throw new ForbiddenError('wrong credentials');
      return user;
    }
    const keys = AuthService.throttleKeys(req.username, req.ip);
    const delay = await this.throttle.check(keys);
    let user: UserRecord | undefined;
    let second: SecondFactor = 'ok';
    try {
      if (delay) await sleep(delay);
      user = method === 'hook' ? await this.hookLogin(settings, req) : await this.jsonLogin(settings, req);
      // Asked only after the right password: a wrong one never tells whether two-factor login is on.
      if (user && method === 'json') second = await this.totp.secondFactor(user.id, req.otp);
    } catch (err) {
      await this.throttle.release(keys);
      throw err;
    }
    if (!user) {
      await this.throttle.fail(keys);
      throw new ForbiddenError('wrong credentials');
    }
    if (second !== 'ok') {
      // A missing code is no failure, and no success either (that would clear the count of wrong codes).
      if (second === 'missing') await this.throttle.release(keys);
      else await this.throttle.fail(keys);
      throw secondFactorError(second);
    }
    await this.throttle.succeed(keys);
    return user;
  }

  private async jsonLogin(settings: SharedSettings, req: LoginRequest): Promise<UserRecord | undefined> {
    const rc = settings.auth.recaptcha;
    if (rc?.secret) {
      if (!req.recaptcha || !(await verifyRecaptcha(rc.host, rc.secret, req.recaptcha))) return undefined;
    }
    const user = req.username ? await this.repos.users.getByUsername(req.username) : undefined;
    const ok = await checkPassword(req.password, user?.password);
    return ok ? user : undefined;
  }

  /**
   * Runs the configured hook (argv only, no shell) with USERNAME and PASSWORD in its environment.
   * A hook that answers `auth` signs in the user of exactly that name (after NFC), created from
   * the hook's fields on first sight; an existing user is never changed by a hook login.
   */
  private async hookLogin(settings: SharedSettings, req: LoginRequest): Promise<UserRecord | undefined> {
    if (!settings.auth.command.trim()) throw new ForbiddenError('the auth hook is not configured');
    const out = await runHook(this.exec, settings, settings.auth.command, { USERNAME: req.username, PASSWORD: req.password });
    if (out.code !== 0) {
      this.log.warn(`auth hook ${out.error ? `refused: ${out.error}` : `exited with ${out.code}`} for user ${JSON.stringify(req.username)}`);
      return undefined;
    }
    const kv = parseHookOutput(out.stdout);
    const action = kv.get('hook.action');
    if (action === 'block') return undefined;
    if (action === 'pass') return this.jsonLogin(settings, req);
    if (action !== 'auth') {
      this.log.warn(`auth hook printed no valid hook.action for user ${JSON.stringify(req.username)}`);
      return undefined;
    }
    const name = exactName(req.username);
    const existing = name ? await exactUser(this.repos, name) : 'different';
    if (existing === 'different') {
      this.log.warn(`auth hook accepted ${JSON.stringify(req.username)}, which is not exactly a user name: refused`);
      return undefined;
    }
    return existing ?? provisionOnce(this.repos, this.users, settings, name!, hookUserFields(kv));
  }
}

/**
 * Runs the auth hook through the command runner's module: argv only (quotes honoured, no
 * shell), scrubbed environment plus `env`, a time limit. Any refusal or failure is code -1.
 */
export async function runHook(
  exec: ExecService,
  settings: SharedSettings,
  line: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number; stdout: string; error?: string }> {
  try {
    return await exec.runArgv(line, env, timeoutMs, settings);
  } catch (err) {
    return { code: -1, stdout: '', error: (err as Error).message };
  }
}

export function parseHookOutput(stdout: string): Map<string, string> {
  const kv = new Map<string, string>();
  for (const line of stdout.split(/\r?\n/)) {
    const i = line.indexOf('=');
    if (i > 0) kv.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return kv;
}

const PERMS = ['create', 'rename', 'modify', 'delete', 'share', 'download'] as const;

function hookUserFields(kv: Map<string, string>): Partial<UserRecord> {
  const out: Partial<UserRecord> = {};
  const bool = (v: string | undefined) => v === 'true';
  // Cleaned here too, as the update path for existing users does not go through create().
  if (kv.has('user.scope')) out.scope = cleanScope(kv.get('user.scope')!);
  if (kv.has('user.locale')) out.locale = kv.get('user.locale')!;
  if (kv.has('user.viewMode')) out.viewMode = kv.get('user.viewMode') === 'mosaic' ? 'mosaic' : 'list';
  if (kv.has('user.singleClick')) out.singleClick = bool(kv.get('user.singleClick'));
  if (kv.has('user.hideDotfiles')) out.hideDotfiles = bool(kv.get('user.hideDotfiles'));
  if (kv.has('user.sorting.by') || kv.has('user.sorting.asc')) {
    out.sorting = { by: kv.get('user.sorting.by') ?? 'name', asc: bool(kv.get('user.sorting.asc')) };
  }
  const perm: Partial<UserRecord['perm']> = {};
  for (const p of PERMS) if (kv.has(`user.perm.${p}`)) perm[p] = bool(kv.get(`user.perm.${p}`));
  if (Object.keys(perm).length) out.perm = perm as UserRecord['perm'];
  return out;
}
