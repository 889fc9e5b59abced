/**
 * Users, keyed by numeric id, with a case-insensitive username index.
 * Invariants kept here: unique usernames; the last admin is never deleted or demoted.
 */
import type { Database } from '../db.ts';
import { memoOf } from '../read-memo.ts';
import { ConflictError, ForbiddenError, NotFoundError, BadRequestError } from '../../errors.ts';
import type { UserData } from '../../api/user.ts';
import { UserDataSchema } from '../../schemas/user.ts';

/** A stored user: the wire fields (password = bcrypt hash) plus bookkeeping. */
export interface UserRecord extends UserData {
  /** Bumped to revoke every token issued before (password change, deletion). */
  sessionEpoch: number;
  /** Epoch milliseconds of the last change, strictly increasing per user; older tokens are asked to renew. */
  updatedAt: number;
  /**
   * The session (token id) that changed the user's own password: it stays valid across that
   * epoch bump, while `epoch` is still the user's sessionEpoch, so the client that made the
   * change is not logged out. Any later bump (another password change, an import) ends it.
   */
  keptSession?: { jti: string; epoch: number };
}

const userKey = (id: number) => `u:${id}`;
const nameKey = (name: string) => `n:${name.normalize('NFC').toLowerCase()}`;
const ID_PREFIX = 'i:';
const idKey = (id: number) => `${ID_PREFIX}${id}`;

export class UsersRepo {
  /** Users parsed in the read memo's current generation, by id (the signed-in user is read on every request). */
  private readonly parsed = new Map<number, UserRecord>();
  private parsedGeneration?: number;

  constructor(private readonly db: Database) {}

  private get kv() {
    return this.db.ns('users');
  }

  /**
   * The user with this id. Parsed once per memo generation (any write, or a change seen by the
   * database refresh, starts a new one); every caller gets its own copy (`copyRecord`), which
   * it may change without the change reaching the next caller.
   */
  async get(id: number): Promise<UserRecord | undefined> {
    if (!Number.isSafeInteger(id) || id <= 0) return undefined;
    const memo = memoOf(this.kv);
    const generation = memo?.generation;
    if (generation !== undefined && generation !== this.parsedGeneration) {
      this.parsed.clear();
      this.parsedGeneration = generation;
    }
    const hit = this.parsed.get(id);
    if (hit) return copyRecord(hit);
    const raw = await this.kv.get<UserRecord>(userKey(id));
    if (!raw) return undefined;
    const record = toRecord(raw);
    // Kept only when no write came between the read and now (a read that raced a write is not).
    if (generation !== undefined && memo?.generation === generation && this.parsed.size < 10_000) this.parsed.set(id, copyRecord(record));
    return record;
  }

  async mustGet(id: number): Promise<UserRecord> {
    const u = await this.get(id);
    if (!u) throw new NotFoundError(`user ${id} not found`);
    return u;
  }

  async getByUsername(username: string): Promise<UserRecord | undefined> {
    const id = await this.kv.get<number>(nameKey(username));
    if (id === undefined) return undefined;
    const u = await this.get(id);
    // Guard against a stale index entry.
    return u && u.username.toLowerCase() === username.normalize('NFC').toLowerCase() ? u : undefined;
  }

  /** Finds by numeric id or by username. */
  async find(idOrName: string): Promise<UserRecord | undefined> {
    if (/^\d+$/.test(idOrName)) {
      const byId = await this.get(Number(idOrName));
      if (byId) return byId;
    }
    return this.getByUsername(idOrName);
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.db.entries<UserRecord>('users');
    return rows
      .filter(([k]) => k.startsWith('u:'))
      .map(([, v]) => toRecord(v))
      .sort((a, b) => a.id - b.id);
  }

  async count(): Promise<number> {
    return (await this.list()).length;
  }

  /**
   * Writes run one at a time in this process, so the checks they make (a free username, the
   * last admin, the next id) still hold when they write.
   */
  private writes: Promise<unknown> = Promise.resolve();
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.writes.then(fn, fn);
    this.writes = next.catch(() => {});
    return next;
  }

  /** Stores a new user with the next id. `data.password` must already be a hash. */
  create(data: UserData): Promise<UserRecord> {
    return this.serial(() => this.createNow(data));
  }

  /** Replaces a stored user, keeping the invariants. */
  update(next: UserRecord): Promise<UserRecord> {
    return this.serial(() => this.updateNow(next));
  }

  delete(id: number): Promise<UserRecord> {
    return this.serial(() => this.deleteNow(id));
  }

  private async createNow(data: UserData): Promise<UserRecord> {
    const username = cleanUsername(data.username);
    if (await this.getByUsername(username)) throw new ConflictError(`username "${username}" is already taken`);
    const id = await this.claimId();
    const record: UserRecord = { ...data, id, username, sessionEpoch: 0, updatedAt: Date.now() };
    // The record before its name: a name entry whose user is missing is then never a creation
    // under way, only what a crash left (claimName takes it over).
    await this.kv.set(userKey(id), record);
    try {
      await this.claimName(username, id);
    } catch (err) {
      await this.kv.delete(userKey(id));
      throw err;
    }
    return record;
  }

  /**
   * The next user id. Each id is claimed with a marker row that outlives its user (`i:<id>`), in
   * one statement, so no id is handed out twice: not to two processes creating users at once
   * (the CLI beside a running fm, two instances on PostgreSQL), and not again after a deletion
   * (a token of the deleted user must not fit the new one). `seq` only says where to start.
   */
  private async claimId(): Promise<number> {
    let id = ((await this.kv.get<number>('seq')) ?? 0) + 1;
    while (!(await this.db.insertNew('users', idKey(id), true))) id++;
    // Two processes may write seq out of order, so it can lag a few ids behind: the markers above
    // it still hold them (and replaceAll counts them).
    await this.kv.set('seq', id);
    return id;
  }

  /**
   * Claims `username` for user `id` in one statement. A name held by another user is a conflict;
   * an entry pointing at no user with that name is what a crash between two writes left, and is
   * taken over.
   */
  private async claimName(username: string, id: number): Promise<void> {
    if (await this.db.insertNew('users', nameKey(username), id)) return;
    const holder = await this.getByUsername(username);
    if (holder && holder.id !== id) throw new ConflictError(`username "${username}" is already taken`);
    await this.kv.set(nameKey(username), id);
  }

  private async updateNow(next: UserRecord): Promise<UserRecord> {
    const prev = await this.mustGet(next.id);
    const username = cleanUsername(next.username);
    if (nameKey(username) !== nameKey(prev.username)) {
      const holder = await this.getByUsername(username);
      if (holder && holder.id !== prev.id) throw new ConflictError(`username "${username}" is already taken`);
    }
    if (prev.perm.admin && !next.perm.admin && (await this.adminCount()) <= 1) {
      throw new ForbiddenError('the last admin cannot lose admin rights');
    }
    const renamed = nameKey(username) !== nameKey(prev.username);
    // The new name is claimed before anything is written: of two processes renaming to one name, one wins.
    if (renamed) await this.claimName(username, prev.id);
    // Strictly increasing, so two changes within one millisecond still count as a change.
    const record: UserRecord = { ...next, username, updatedAt: Math.max(Date.now(), prev.updatedAt + 1) };
    await this.kv.set(userKey(record.id), record);
    if (renamed) await this.kv.delete(nameKey(prev.username));
    return record;
  }

  private async deleteNow(id: number): Promise<UserRecord> {
    const prev = await this.mustGet(id);
    if (prev.perm.admin && (await this.adminCount()) <= 1) throw new ForbiddenError('the last admin cannot be deleted');
    await this.kv.delete(userKey(id));
    await this.kv.delete(nameKey(prev.username));
    return prev;
  }

  /**
   * Replaces every user at once (imports). The invariants are checked on the new set before
   * anything is written (valid distinct ids, unique usernames, at least one admin); if a write
   * fails, the previous users are restored. Records keep their ids, and every id claimed before
   * stays claimed, so an id is not handed out twice.
   */
  replaceAll(records: UserRecord[]): Promise<void> {
    return this.serial(() => this.replaceAllNow(records));
  }

  private async replaceAllNow(records: UserRecord[]): Promise<void> {
    const ids = new Set<number>();
    const names = new Set<string>();
    const clean = records.map((r) => ({ ...r, username: cleanUsername(r.username) }));
    for (const r of clean) {
      if (!Number.isSafeInteger(r.id) || r.id <= 0) throw new BadRequestError(`invalid user id ${r.id}`);
      if (ids.has(r.id)) throw new ConflictError(`user id ${r.id} appears twice`);
      if (names.has(nameKey(r.username))) throw new ConflictError(`username "${r.username}" is already taken`);
      ids.add(r.id);
      names.add(nameKey(r.username));
    }
    if (!clean.some((r) => r.perm.admin)) throw new ForbiddenError('the instance would be left without an admin');
    const before = await this.db.entries<unknown>('users');
    let seq = (await this.kv.get<number>('seq')) ?? 0;
    for (const r of clean) seq = Math.max(seq, r.id);
    try {
      await this.kv.clear();
      // The ids claimed before stay claimed (claimId).
      for (const [key] of before) if (key.startsWith(ID_PREFIX)) await this.kv.set(key, true);
      for (const r of clean) {
        await this.kv.set(userKey(r.id), r);
        await this.kv.set(nameKey(r.username), r.id);
        await this.kv.set(idKey(r.id), true);
      }
      await this.kv.set('seq', seq);
    } catch (err) {
      await this.kv.clear();
      for (const [k, v] of before) await this.kv.set(k, v);
      throw err;
    }
  }

  async adminCount(): Promise<number> {
    return (await this.list()).filter((u) => u.perm.admin).length;
  }
}

/** Trims and validates a username; it must be non-empty and free of control characters and slashes. */
export function cleanUsername(raw: string): string {
  const name = raw.normalize('NFC').trim();
  if (!name) throw new BadRequestError('username is empty');
  if (name.length > 128) throw new BadRequestError('username is longer than 128 characters');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/\\]/.test(name)) throw new BadRequestError('username contains a slash or a control character');
  return name;
}

/** The wire fields of a stored user (password = its hash), deep-copied, without bookkeeping. */
export function userData(u: UserRecord): UserData {
  return {
    id: u.id,
    username: u.username,
    password: u.password,
    scope: u.scope,
    locale: u.locale,
    lockPassword: u.lockPassword,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: { ...u.perm },
    commands: [...u.commands],
    sorting: { ...u.sorting },
    rules: u.rules.map((r) => ({ ...r, regexp: { ...r.regexp } })),
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
    quota: u.quota,
    quotaFiles: u.quotaFiles,
    dirSizes: u.dirSizes,
  };
}

/** The fields of `T` that hold an object or an array (a copy must copy them, not share them). */
type NestedKeys<T> = { [K in keyof T]-?: NonNullable<T[K]> extends object ? K : never }[keyof T];

/**
 * How each nested field of a user is copied. The type requires an entry for every field that
 * holds an object or an array, so a nested field added to UserRecord does not compile until it
 * is copied here; what a copier copies inside its field (a rule's `regexp`) only the unit test
 * checks, by changing every level of a returned user.
 */
const COPY_NESTED: { [K in NestedKeys<UserRecord>]: (v: NonNullable<UserRecord[K]>) => NonNullable<UserRecord[K]> } = {
  perm: (perm) => ({ ...perm }),
  commands: (commands) => [...commands],
  sorting: (sorting) => ({ ...sorting }),
  rules: (rules) => rules.map((r) => ({ ...r, regexp: { ...r.regexp } })),
  keptSession: (kept) => ({ ...kept }),
};

const NESTED_KEYS = Object.keys(COPY_NESTED) as NestedKeys<UserRecord>[];

/**
 * A deep copy of a user record, field by field: what structuredClone did per request at some
 * 3 µs (the signed-in user is read on every request), in ~0.1 µs.
 */
function copyRecord(u: UserRecord): UserRecord {
  const copy: UserRecord = { ...u };
  const fields = copy as unknown as Record<string, unknown>;
  for (const key of NESTED_KEYS) {
    const value = u[key];
    // Each copier takes and returns its own field's type; TypeScript cannot pair them in a loop.
    if (value !== undefined) fields[key] = (COPY_NESTED[key] as (v: unknown) => unknown)(value);
  }
  return copy;
}

function toRecord(raw: UserRecord): UserRecord {
  const parsed = UserDataSchema.parse(raw);
  const record: UserRecord = { ...parsed, sessionEpoch: raw.sessionEpoch ?? 0, updatedAt: raw.updatedAt ?? 0 };
  if (raw.keptSession) record.keptSession = { jti: raw.keptSession.jti, epoch: raw.keptSession.epoch };
  return record;
}
