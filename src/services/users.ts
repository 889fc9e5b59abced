/**
 * User management rules shared by the users API, signup and the CLI: field-level
 * permissions, the password policy, home folders and the last-admin invariant.
 */
import { BadRequestError, ConflictError, ForbiddenError } from '../errors.ts';
import { permissionProblem, type UserData, type UserWrite } from '../api/user.ts';
import { UserDataSchema } from '../schemas/user.ts';
import type { SharedSettings } from '../api/settings.ts';
import { cleanUsername, type UserRecord } from '../storage/repos/users.ts';
import type { Repos } from './context.ts';
import { checkPassword, checkPasswordPolicy, hashPassword, isBcryptHash } from './passwords.ts';
import { cleanScope, homeScope, scopeDir } from './scope.ts';
import { makeFolders } from './files/disk/lookup.ts';
import { checkAllowlist } from './exec/launchers.ts';
import { checkRules, type AllowlistOptions } from './settings.ts';

/** Fields only an admin may change. */
const ADMIN_FIELDS = new Set(['username', 'scope', 'lockPassword', 'perm', 'commands', 'rules', 'quota', 'quotaFiles']);
/** Fields whose change needs the caller's current password (json auth). */
const SENSITIVE_FIELDS = new Set(['all', 'username', 'password', 'scope', 'lockPassword', 'commands', 'perm']);
const FIELDS = [
  'username',
  'password',
  'scope',
  'locale',
  'lockPassword',
  'viewMode',
  'singleClick',
  'redirectAfterCopyMove',
  'perm',
  'commands',
  'sorting',
  'rules',
  'hideDotfiles',
  'dateFormat',
  'aceEditorTheme',
  'quota',
  'quotaFiles',
  'dirSizes',
] as const;
type Field = (typeof FIELDS)[number];

/** Maps a `which` entry (any case, filebrowser's Title-case included) to a field name. */
function fieldName(raw: string): Field | 'all' {
  const lower = raw.toLowerCase();
  if (lower === 'all') return 'all';
  const f = FIELDS.find((x) => x.toLowerCase() === lower);
  if (!f) throw new BadRequestError(`unknown user field "${raw}"`);
  return f;
}

/** Options of a user update. */
export interface UpdateOptions extends AllowlistOptions {
  /** The token id (jti) of the caller's session: kept valid when the caller changes their own password. */
  keepSession?: string;
}

export interface CreateUserInput {
  data: Partial<UserData> & { username: string; password: string };
  /** The password is already a bcrypt hash (imports). */
  passwordIsHash?: boolean;
  /** Skip the policy (the first admin's generated password, imports). */
  skipPolicy?: boolean;
}

export class UserService {
  /** Serialises creations so that two requests cannot claim the same home folder. */
  private chain: Promise<unknown> = Promise.resolve();

  /**
   * Checks a command allowlist a write sets: launcher programs (sh, env, find, python, ...) are
   * refused unless `options.allowLaunchers`; entries already in `previous` are not re-checked.
   * Applies to the users API and the CLI alike.
   */
  validateCommands(commands: string[], options: AllowlistOptions = {}, previous: readonly string[] = []): void {
    checkAllowlist(commands, previous, Boolean(options.allowLaunchers), 'commands');
  }

  constructor(
    private readonly repos: Repos,
    /** The server root; undefined in the CLI, where home folders are created on first use. */
    private readonly root?: string,
  ) {}

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => {});
    return next;
  }

  /** Parses user data from a request, rejecting wrong types and bad rules with 400. */
  parseData(raw: unknown): UserData {
    const r = UserDataSchema.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0];
      throw new BadRequestError(`invalid user: ${issue?.path.join('.') || 'data'}: ${issue?.message ?? 'invalid'}`);
    }
    checkRules(r.data.rules, "the user's rules");
    return r.data;
  }

  /** Creates a user with the policy, unique name and home folder rules. */
  async create(input: CreateUserInput, settings?: SharedSettings, options: AllowlistOptions = {}): Promise<UserRecord> {
    const s = settings ?? (await this.repos.settings.get());
    const data = this.parseData({ ...s.defaults, ...input.data });
    data.username = cleanUsername(data.username);
    if (data.perm.admin) data.perm = allPermissions();
    const problem = permissionProblem(data.perm);
    if (problem) throw new BadRequestError(problem);
    // The defaults' commands were checked when the settings were saved; only additions need a check.
    if (input.data.commands !== undefined) this.validateCommands(data.commands, options, s.defaults.commands);
    let password: string;
    if (input.passwordIsHash) {
      if (!isBcryptHash(input.data.password)) throw new BadRequestError('password hash is not a bcrypt hash');
      password = input.data.password;
    } else {
      if (!input.skipPolicy) checkPasswordPolicy(input.data.password, s.minimumPasswordLength);
      password = await hashPassword(input.data.password);
    }
    return this.serial(async () => {
      const explicitScope = input.data.scope !== undefined && input.data.scope !== '';
      const scope = cleanScope(explicitScope ? input.data.scope! : s.createUserDir ? homeScope(s.userHomeBasePath, data.username) : data.scope);
      if (!explicitScope && s.createUserDir) {
        await this.assertHomeFree(scope);
      }
      const user = await this.repos.users.create({ ...data, password, scope });
      if (this.root && s.createUserDir && !explicitScope) await makeFolders(scopeDir(this.root, scope), s.dirMode);
      return user;
    });
  }

  /** Sign-up: defaults without admin, execute or commands; home folder when configured. */
  async signup(username: string, password: string): Promise<UserRecord> {
    const s = await this.repos.settings.get();
    if (!username || !password) throw new BadRequestError('username and password are required');
    const perm = { ...s.defaults.perm, admin: false, execute: false };
    // A signed-up user never gets the whole root by default: without createUserDir the
    // default scope applies, which the admin chose.
    return this.create({ data: { username, password, perm, commands: [], lockPassword: false } }, s);
  }

  private async assertHomeFree(scope: string): Promise<void> {
    const lower = scope.toLowerCase();
    const users = await this.repos.users.list();
    if (users.some((u) => cleanScope(u.scope).toLowerCase() === lower)) {
      throw new ConflictError(`home folder ${scope} already belongs to another user`);
    }
  }

  /**
   * Applies a PUT /api/users/{id} body. `actor` is the signed-in user; `authMethod`
   * decides whether the current password is required.
   */
  async update(actor: UserRecord, id: number, body: UserWrite, requireCurrentPassword: boolean, options: UpdateOptions = {}): Promise<UserRecord> {
    if (!actor.perm.admin && actor.id !== id) throw new ForbiddenError('you may only change your own profile');
    const target = await this.repos.users.mustGet(id);
    const rawData = body.data as Record<string, unknown>;
    if (rawData.id !== undefined && Number(rawData.id) !== id) throw new BadRequestError('data.id does not match the URL');
    const which = body.which.map(fieldName);
    const full = which.length === 0 || which.includes('all');
    if (full && !actor.perm.admin) throw new ForbiddenError('only admins can replace a whole user');
    const fields: Field[] = full ? [...FIELDS] : (which as Field[]);
    if (!actor.perm.admin && fields.some((f) => ADMIN_FIELDS.has(f))) {
      throw new ForbiddenError('only admins can change username, scope, lockPassword, permissions, commands, rules or quotas');
    }
    const newPassword = typeof rawData.password === 'string' ? rawData.password : '';
    const changesPassword = fields.includes('password') && newPassword !== '';
    if (changesPassword && !actor.perm.admin && target.lockPassword) throw new ForbiddenError('the password of this user is locked');
    if (requireCurrentPassword && (full || fields.some((f) => SENSITIVE_FIELDS.has(f)))) {
      await this.checkCurrentPassword(actor, body.current_password);
    }
    const s = await this.repos.settings.get();
    // Parse the merged record so every field is type-checked.
    const merged = this.parseData({ ...target, password: '', ...pick(rawData, fields) });
    const next: UserRecord = { ...target };
    for (const f of fields) {
      if (f === 'password') continue;
      (next as unknown as Record<string, unknown>)[f] = merged[f];
    }
    if (fields.includes('scope')) next.scope = cleanScope(merged.scope || '.');
    if (fields.includes('perm') && next.perm.admin) next.perm = allPermissions();
    if (next.perm.admin) next.lockPassword = false;
    const problem = permissionProblem(next.perm);
    if (problem) throw new BadRequestError(problem);
    if (fields.includes('commands') && next.commands.join('\0') !== target.commands.join('\0')) {
      this.validateCommands(next.commands, options, target.commands);
    }
    if (changesPassword) {
      checkPasswordPolicy(newPassword, s.minimumPasswordLength);
      next.password = await hashPassword(newPassword);
      // Every other session of the user ends; the caller's own one goes on (and renews).
      next.sessionEpoch = target.sessionEpoch + 1;
      next.keptSession = actor.id === id && options.keepSession ? { jti: options.keepSession, epoch: next.sessionEpoch } : undefined;
    }
    return this.repos.users.update(next);
  }

  /** Every user, by id. */
  list(): Promise<UserRecord[]> {
    return this.repos.users.list();
  }

  /** The user `id` as `viewer` may read it: their own record, any record for admins (403 otherwise, 404 unknown). */
  async read(viewer: UserRecord, id: number): Promise<UserRecord> {
    if (!viewer.perm.admin && viewer.id !== id) throw new ForbiddenError('you may only read your own profile');
    return this.repos.users.mustGet(id);
  }

  async remove(actor: UserRecord, id: number, currentPassword: string | undefined, requireCurrentPassword: boolean): Promise<UserRecord> {
    if (!actor.perm.admin && actor.id !== id) throw new ForbiddenError('you may only delete your own account');
    if (requireCurrentPassword) await this.checkCurrentPassword(actor, currentPassword);
    return this.repos.users.delete(id);
  }

  async checkCurrentPassword(actor: UserRecord, given: string | undefined): Promise<void> {
    if (!given || !(await checkPassword(given, actor.password))) {
      throw new BadRequestError('the current password is incorrect');
    }
  }
}

export function allPermissions(): UserData['perm'] {
  return { admin: true, execute: true, create: true, rename: true, modify: true, delete: true, share: true, download: true };
}

function pick(obj: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in obj) out[k] = obj[k];
  return out;
}
