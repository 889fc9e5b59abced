/**
 * Login methods (json, noauth, proxy, hook), throttling and the effective auth method.
 * Tokens themselves are in tokens.ts.
 */
import net from 'node:net';
import { BadRequestError, ConflictError, ForbiddenError } from '../errors.ts';
import type { AuthMethod, Settings } from '../api/settings.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Logger, Repos } from './context.ts';
import { checkPassword } from './passwords.ts';
import { cleanScope } from './scope.ts';
import { SIGNUP_THROTTLE, Throttle, sleep } from './throttle.ts';
import type { UserService } from './users.ts';
import { randomBytes } from 'node:crypto';
import type { ExecService } from './exec/index.ts';

export interface AuthOptions {
  /** `fm serve --noauth`: every request acts as user 1. */
  noauth: boolean;
  /** `fm serve --auth-header`: proxy auth with this header (overrides the stored method). */
  authHeader?: string;
  /** Addresses or CIDRs allowed to set the proxy header. */
  trustedProxies: string[];
}

export interface LoginRequest {
  username: string;
  password: string;
  recaptcha?: string;
  ip: string;
  headers: Record<string, string | string[] | undefined>;
}

export class AuthService {
  readonly throttle = new Throttle();
  /** Bounds how many accounts one address can sign up (every attempt counts). */
  readonly signupThrottle = new Throttle(SIGNUP_THROTTLE);
  private readonly trusted: net.BlockList;

  constructor(
    private readonly repos: Repos,
    private readonly users: UserService,
    readonly options: AuthOptions,
    private readonly log: Logger,
    private readonly exec: ExecService,
  ) {
    this.trusted = buildBlockList(options.trustedProxies);
  }

  /** The throttle keys of a login attempt: the username and the client address. */
  static throttleKeys(username: string, ip: string): string[] {
    return [`user:${username.normalize('NFC').toLowerCase().slice(0, 256)}`, `ip:${addressKey(ip)}`];
  }

  /** The method in force: flags override the stored setting. */
  method(settings: Settings): AuthMethod {
    if (this.options.noauth) return 'noauth';
    if (this.options.authHeader) return 'proxy';
    return settings.authMethod;
  }

  proxyHeader(settings: Settings): string {
    return (this.options.authHeader || settings.auth.header || 'X-Forwarded-User').toLowerCase();
  }

  isTrustedProxy(ip: string): boolean {
    return isInList(this.trusted, ip);
  }

  /** The user named by a trusted proxy header, created on first sight; undefined if absent or untrusted. */
  async proxyUser(settings: Settings, ip: string, headers: LoginRequest['headers']): Promise<UserRecord | undefined> {
    const raw = headers[this.proxyHeader(settings)];
    const name = Array.isArray(raw) ? raw[0] : raw;
    if (!name) return undefined;
    if (!this.isTrustedProxy(ip)) {
      this.log.warn(`auth: ignored proxy header from untrusted address ${ip}`);
      return undefined;
    }
    const existing = await this.repos.users.getByUsername(name);
    if (existing) return existing;
    try {
      return await this.provision(settings, name, {});
    } catch (err) {
      // Two first requests of the same new user race: the loser reads the winner's record.
      const created = err instanceof ConflictError ? await this.repos.users.getByUsername(name) : undefined;
      if (created) return created;
      throw err;
    }
  }

  /** Creates a user from the defaults, never with admin or execute (proxy and hook users). */
  private async provision(settings: Settings, username: string, overrides: Partial<UserRecord>): Promise<UserRecord> {
    const perm = { ...settings.defaults.perm, ...(overrides.perm ?? {}), admin: false, execute: false };
    return this.users.create(
      {
        data: { ...overrides, username, password: randomBytes(24).toString('base64url'), perm, commands: [], lockPassword: true },
        skipPolicy: true,
      },
      settings,
    );
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
      const user = await this.proxyUser(settings, req.ip, req.headers);
      if (!user) throw new ForbiddenError('wrong credentials');
      return user;
    }
    const keys = AuthService.throttleKeys(req.username, req.ip);
    const delay = this.throttle.check(keys);
    let user: UserRecord | undefined;
    try {
      if (delay) await sleep(delay);
      user = method === 'hook' ? await this.hookLogin(settings, req) : await this.jsonLogin(settings, req);
    } catch (err) {
      this.throttle.release(keys);
      throw err;
    }
    if (!user) {
      this.throttle.fail(keys);
      throw new ForbiddenError('wrong credentials');
    }
    this.throttle.succeed(keys);
    return user;
  }

  private async jsonLogin(settings: Settings, req: LoginRequest): Promise<UserRecord | undefined> {
    const rc = settings.auth.recaptcha;
    if (rc?.secret) {
      if (!req.recaptcha || !(await verifyRecaptcha(rc.host, rc.secret, req.recaptcha))) return undefined;
    }
    const user = req.username ? await this.repos.users.getByUsername(req.username) : undefined;
    const ok = await checkPassword(req.password, user?.password);
    return ok ? user : undefined;
  }

  /** Runs the configured hook (argv only, no shell) with USERNAME and PASSWORD in its environment. */
  private async hookLogin(settings: Settings, req: LoginRequest): Promise<UserRecord | undefined> {
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
    const overrides = hookUserFields(kv);
    const existing = await this.repos.users.getByUsername(req.username);
    if (!existing) return this.provision(settings, req.username, overrides);
    const perm = { ...existing.perm, ...(overrides.perm ?? {}) };
    return this.repos.users.update({ ...existing, ...overrides, perm, lockPassword: true });
  }

  /** Parses the login body, rejecting wrong types. */
  static parseLoginBody(body: unknown): { username: string; password: string; recaptcha?: string } {
    if (!body || typeof body !== 'object') return { username: '', password: '' };
    const b = body as Record<string, unknown>;
    for (const k of ['username', 'password', 'recaptcha']) {
      if (b[k] !== undefined && b[k] !== null && typeof b[k] !== 'string') throw new BadRequestError(`${k} must be a string`);
    }
    return { username: (b.username as string) ?? '', password: (b.password as string) ?? '', recaptcha: b.recaptcha as string | undefined };
  }
}

/** Builds the list of trusted proxy addresses from `addr` and `addr/bits` entries (IPv4 or IPv6). */
export function buildBlockList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const raw of entries) {
    const e = raw.trim();
    if (!e) continue;
    const [addr, bits, extra] = e.split('/');
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    const max = type === 'ipv6' ? 128 : 32;
    if (!net.isIP(addr) || extra !== undefined || (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= max))) {
      throw new Error(`invalid trusted proxy address "${e}" (use an address or a CIDR such as 10.0.0.0/8)`);
    }
    if (bits !== undefined) list.addSubnet(addr, Number(bits), type);
    else list.addAddress(addr, type);
  }
  return list;
}

/** Whether a client address (IPv4-mapped IPv6 included) is in the list. */
export function isInList(list: net.BlockList, ip: string): boolean {
  const addr = unmapV4(ip);
  if (!net.isIP(addr)) return false;
  return list.check(addr, net.isIPv6(addr) ? 'ipv6' : 'ipv4');
}

function unmapV4(ip: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}

/**
 * The address a client is throttled by: an IPv4 address as is, an IPv6 address by its /64
 * (one host usually owns a whole /64, so per-address limits would be trivial to dodge).
 */
export function addressKey(ip: string): string {
  const addr = unmapV4(ip);
  if (!net.isIPv6(addr)) return addr;
  const [head, tail = ''] = addr.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = addr.includes('::') ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill('0'), ...t] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => (parseInt(g, 16) || 0).toString(16))
    .join(':')}::/64`;
}

async function verifyRecaptcha(host: string, secret: string, response: string): Promise<boolean> {
  try {
    const res = await fetch(`${host.replace(/\/$/, '')}/recaptcha/api/siteverify`, {
      method: 'POST',
      body: new URLSearchParams({ secret, response }),
      signal: AbortSignal.timeout(10_000),
    });
    const data = (await res.json()) as { success?: boolean };
    return data.success === true;
  } catch {
    return false;
  }
}

/**
 * Runs the auth hook through the command runner's module: argv only (quotes honoured, no
 * shell), scrubbed environment plus `env`, a time limit. Any refusal or failure is code -1.
 */
export async function runHook(
  exec: ExecService,
  settings: Settings,
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

