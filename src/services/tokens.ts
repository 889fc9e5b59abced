/** JWT issue and verification (HS256 only, exp required, revocable by jti and by user epoch). */
import crypto from 'node:crypto';
import { UnauthorizedError } from '../errors.ts';
import type { TwoFactorState } from '../api/totp.ts';
import type { TokenUser } from '../api/user.ts';
import type { UserRecord } from '../storage/repos/users.ts';
import type { Repos } from './context.ts';

export interface TokenClaims {
  user: TokenUser;
  /** The user's sessionEpoch when the token was issued. */
  sev: number;
  /** The user's updatedAt (ms) when the token was issued: a later change asks for renewal. */
  uat?: number;
  jti: string;
  iat: number;
  exp: number;
  iss: string;
}

export const ISSUER = 'fm';

/** Verified tokens kept (by their exact string); a full cache is simply emptied. */
const VERIFIED_MAX = 10_000;

export function tokenUser(u: UserRecord): TokenUser {
  return {
    id: u.id,
    username: u.username,
    locale: u.locale,
    viewMode: u.viewMode,
    singleClick: u.singleClick,
    redirectAfterCopyMove: u.redirectAfterCopyMove,
    perm: u.perm,
    commands: u.commands,
    lockPassword: u.lockPassword,
    hideDotfiles: u.hideDotfiles,
    dateFormat: u.dateFormat,
    aceEditorTheme: u.aceEditorTheme,
    sorting: u.sorting,
    dirSizes: u.dirSizes,
  };
}

/** jsonwebtoken (with semver, which it loads) is loaded by the first sign-in or token check, not at start-up. */
type Jwt = typeof import('jsonwebtoken');
let jwtModule: Promise<Jwt> | undefined;
// Node hands a CommonJS module's exports over as `default` (the bundle also copies them to the namespace).
const loadJwt = () => (jwtModule ??= import('jsonwebtoken').then((m) => (m as Jwt & { default?: Jwt }).default ?? m));

export class TokenService {
  /**
   * The HS256 key as a KeyObject: given a Buffer, jsonwebtoken first tries to parse it as a
   * public key on every call (a thrown error each time, ~10× the cost of the HMAC itself).
   */
  private key?: crypto.KeyObject;
  /**
   * Claims of tokens whose signature was already checked, by token string: the HMAC and JSON
   * parsing are then skipped. Only the signature is cached; expiry is checked against `exp` and
   * the user, session epoch and revocation are read (from the memoised database) on every call.
   */
  private readonly verified = new Map<string, TokenClaims>();

  constructor(
    private readonly repos: Repos,
    /** Token lifetime in seconds. */
    readonly lifetime: number,
    /** The two-factor state a session's `user` claim carries (the UI leads users the policy asks to enrol). */
    private readonly twoFactor?: (user: UserRecord) => Promise<TwoFactorState>,
  ) {}

  private async signingKey(): Promise<crypto.KeyObject> {
    this.key ??= crypto.createSecretKey(await this.repos.settings.signingKey());
    return this.key;
  }

  async issue(user: UserRecord): Promise<string> {
    const key = await this.signingKey();
    const claimUser: TokenUser = { ...tokenUser(user), ...(this.twoFactor ? { twoFactor: await this.twoFactor(user) } : {}) };
    const payload = { user: claimUser, sev: user.sessionEpoch, uat: user.updatedAt, jti: crypto.randomBytes(16).toString('base64url') };
    const jwt = await loadJwt();
    return jwt.sign(payload, key, { algorithm: 'HS256', expiresIn: this.lifetime, issuer: ISSUER });
  }

  /** Verifies signature, algorithm, expiry and revocation; returns the claims and the current user. */
  async verify(token: string): Promise<{ claims: TokenClaims; user: UserRecord }> {
    const claims = this.verified.get(token) ?? (await this.verifySignature(token));
    if (claims.exp * 1000 <= Date.now()) {
      this.verified.delete(token);
      throw new UnauthorizedError('token expired');
    }
    const user = await this.repos.users.get(claims.user.id);
    if (!user) throw new UnauthorizedError('user no longer exists');
    if ((claims.sev ?? 0) !== user.sessionEpoch && !isKeptSession(claims, user)) throw new UnauthorizedError('session revoked');
    if (await this.repos.sessions.isRevoked(claims.jti)) throw new UnauthorizedError('session revoked');
    return { claims, user };
  }

  /** Checks signature, algorithm, issuer, expiry and claim types, and remembers the claims. */
  private async verifySignature(token: string): Promise<TokenClaims> {
    if (token.split('.').length !== 3) throw new UnauthorizedError('token malformed');
    const jwt = await loadJwt();
    let claims: TokenClaims;
    try {
      claims = jwt.verify(token, await this.signingKey(), { algorithms: ['HS256'], issuer: ISSUER }) as TokenClaims;
    } catch (err) {
      const msg = err instanceof jwt.TokenExpiredError ? 'token expired' : 'invalid token';
      throw new UnauthorizedError(msg);
    }
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number' || typeof claims.jti !== 'string' || typeof claims.user?.id !== 'number') {
      throw new UnauthorizedError('invalid token');
    }
    if (this.verified.size >= VERIFIED_MAX) this.verified.clear();
    // Shared by every request that presents this token: nobody may change it.
    Object.freeze(claims.user);
    this.verified.set(token, Object.freeze(claims));
    return claims;
  }

  /** True when under half the lifetime remains or the user changed after the token was issued. */
  shouldRenew(claims: TokenClaims, user: UserRecord): boolean {
    const now = Date.now() / 1000;
    const lifetime = claims.exp - claims.iat;
    const issuedFor = typeof claims.uat === 'number' ? claims.uat : claims.iat * 1000;
    return claims.exp - now < lifetime / 2 || user.updatedAt > issuedFor;
  }

  async revoke(claims: TokenClaims): Promise<void> {
    await this.repos.sessions.revoke(claims.jti, claims.exp);
  }
}

/** The session that changed its own password survives that change (see UserRecord.keptSession). */
function isKeptSession(claims: TokenClaims, user: UserRecord): boolean {
  const kept = user.keptSession;
  return kept !== undefined && kept.epoch === user.sessionEpoch && kept.jti === claims.jti;
}
