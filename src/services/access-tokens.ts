/**
 * Personal access tokens for scripts and clients (`Authorization: Bearer fmpat_<id>_<secret>`,
 * or the password of WebDAV's Basic authentication). A token acts as its user, narrowed: a
 * read-only token holds no permission that changes anything (and the edge refuses every method
 * that writes), a token limited to a folder sees that folder as its whole scope, and neither may
 * run commands, share, administer or manage tokens. It ends when deleted, when it expires, when
 * its user's password changes or the user is deleted.
 */
import crypto from 'node:crypto';
import { ACCESS_TOKEN_PREFIX, type AccessTokenRequest } from '../api/tokens.ts';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import { type AccessTokenRecord, nowSeconds } from '../storage/repos/access-tokens.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Repos } from './context.ts';

/** A last use is written at most this often per token (seconds): a busy script must not write on every request. */
const LAST_USED_GRANULARITY = 60;
const SECRET_BYTES = 32;
const TOKEN_RE = new RegExp(`^${ACCESS_TOKEN_PREFIX}([A-Za-z0-9_-]{12})_([A-Za-z0-9_-]{43})$`);

/** Whether a bearer string is meant as an access token (as opposed to a session JWT). */
export function isAccessToken(s: string): boolean {
  return s.startsWith(ACCESS_TOKEN_PREFIX);
}

const digest = (secret: string) => crypto.createHash('sha256').update(secret).digest('hex');

/** The user as a token may act: the same record with its permissions narrowed. */
export function narrowedUser(user: UserRecord, token: AccessTokenRecord): UserRecord {
  const perm = { ...user.perm };
  if (token.readOnly || token.path) Object.assign(perm, { admin: false, execute: false, share: false });
  if (token.readOnly) Object.assign(perm, { create: false, rename: false, modify: false, delete: false });
  return { ...user, perm };
}

export class AccessTokenService {
  constructor(private readonly repos: Repos) {}

  /** Makes a token for `user`; the answer holds the only copy of its secret. */
  async create(user: UserRecord, req: AccessTokenRequest): Promise<{ record: AccessTokenRecord; token: string }> {
    const secret = crypto.randomBytes(SECRET_BYTES).toString('base64url');
    // One clock reading for both, so that expires - created is exactly the lifetime asked for.
    const now = nowSeconds();
    const record = await this.repos.accessTokens.create({
      userID: user.id,
      name: req.name,
      secretHash: digest(secret),
      created: now,
      expires: req.expires ? now + req.expires : 0,
      readOnly: req.readOnly,
      path: req.path,
      epoch: user.sessionEpoch,
    });
    return { record, token: `${ACCESS_TOKEN_PREFIX}${record.id}_${secret}` };
  }

  /** The token's record and its user, or 401 for anything not a live token of a live user. */
  async verify(token: string): Promise<{ record: AccessTokenRecord; user: UserRecord }> {
    const m = TOKEN_RE.exec(token);
    if (!m) throw new UnauthorizedError('invalid token');
    const record = await this.repos.accessTokens.get(m[1]);
    const given = Buffer.from(digest(m[2]), 'hex');
    if (!record || !crypto.timingSafeEqual(given, Buffer.from(record.secretHash, 'hex'))) throw new UnauthorizedError('invalid token');
    const user = await this.repos.users.get(record.userID);
    if (!user) throw new UnauthorizedError('user no longer exists');
    if (record.epoch !== user.sessionEpoch) throw new UnauthorizedError('token revoked by a password change');
    const now = nowSeconds();
    if (now - record.lastUsed >= LAST_USED_GRANULARITY) {
      record.lastUsed = now;
      // A full disk must not lock scripts out: the last use is a convenience.
      await this.repos.accessTokens.update(record).catch(() => {});
    }
    return { record, user };
  }

  /** The tokens of one user, or of everyone (admin CLI). */
  async list(userID?: number): Promise<AccessTokenRecord[]> {
    const all = await this.repos.accessTokens.list();
    return userID === undefined ? all : all.filter((t) => t.userID === userID);
  }

  /** Deletes a token of `owner` (any token when `owner` is undefined: the admin CLI); 404 otherwise. */
  async remove(id: string, owner?: UserRecord): Promise<AccessTokenRecord> {
    const record = await this.repos.accessTokens.get(id);
    if (!record || (owner && record.userID !== owner.id)) throw new NotFoundError('token not found');
    await this.repos.accessTokens.delete(id);
    return record;
  }

  async userDeleted(user: UserRecord): Promise<void> {
    await this.repos.accessTokens.deleteByUser(user.id);
  }
}
