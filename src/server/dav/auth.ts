/**
 * WebDAV sign-in: HTTP Basic with the user's own credentials, checked by the same login as
 * POST /api/login (auth method, throttle per user and address, 429 when locked), or with the
 * user's name and a personal access token as the password (narrowed as on the API). No
 * anonymous access: without credentials, or with wrong ones, the answer is 401 with a challenge.
 *
 * Clients send the credentials with every request, and bcrypt costs tens of milliseconds, so a
 * successful check is remembered for a few minutes under a digest of the header: only while
 * the user's password hash and session epoch are unchanged (a password change or a deletion
 * ends it at once).
 */
import { createHash } from 'node:crypto';
import { ForbiddenError, OtpRequiredError, UnauthorizedError } from '../../errors.ts';
import { AuthService } from '../../services/auth.ts';
import { peerAddress } from '../client-address.ts';
import { requestSettings, signInWithAccessToken } from '../middleware/auth.ts';
import { isAccessToken } from '../../services/access-tokens.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { FmContext } from '../types.ts';
import { auditAs } from '../audit.ts';

export const DAV_REALM = 'fm';
const REMEMBER_MS = 5 * 60_000;
const MAX_REMEMBERED = 10_000;

interface Remembered {
  userId: number;
  passwordHash: string;
  epoch: number;
  until: number;
}

/** Per server (its services), so that two servers in one process never share an entry. */
const rememberedBy = new WeakMap<object, Map<string, Remembered>>();

function challenge(message: string): UnauthorizedError {
  const err = new UnauthorizedError(message);
  err.headers['WWW-Authenticate'] = `Basic realm="${DAV_REALM}", charset="UTF-8"`;
  return err;
}

/** `Authorization: Basic` → username and password, or undefined. */
export function parseBasic(header: string): { username: string; password: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Sets ctx.state.user from the request's credentials, or throws 401 (429 when throttled). */
export async function davSignIn(ctx: FmContext): Promise<void> {
  const s = ctx.services;
  const settings = await requestSettings(ctx);
  if (s.auth.method(settings) === 'proxy') {
    const user = await s.auth.proxyUser(settings, { peer: peerAddress(ctx), headers: ctx.req.headersDistinct });
    if (!user) throw challenge('login required');
    ctx.state.user = user;
    return;
  }
  const header = ctx.get('Authorization');
  const creds = parseBasic(header);
  if (!creds) throw challenge('login required');
  if (isAccessToken(creds.password)) {
    // A token is checked by its hash (no bcrypt, nothing to remember); a wrong one is a challenge.
    let owner: UserRecord;
    try {
      owner = await signInWithAccessToken(ctx, creds.password);
    } catch (err) {
      if (err instanceof UnauthorizedError) {
        auditAs(ctx, { action: 'login-failed', actor: creds.username, detail: 'webdav, access token' });
        throw challenge(err.message);
      }
      throw err;
    }
    if (creds.username !== owner.username) throw challenge('the token belongs to another user');
    return;
  }
  let remembered = rememberedBy.get(s);
  if (!remembered) {
    remembered = new Map();
    rememberedBy.set(s, remembered);
  }
  const key = createHash('sha256').update(header).digest('base64');
  const hit = remembered.get(key);
  if (hit && hit.until > Date.now()) {
    const user = await s.repos.users.get(hit.userId);
    // Two-factor login turned on since: the password alone is no longer enough (use a token).
    if (user && user.password === hit.passwordHash && user.sessionEpoch === hit.epoch && !(await s.totp.enabled(user.id))) {
      // A locked-out user and address stay locked out, remembered or not (429), as at the login.
      const keys = AuthService.throttleKeys(creds.username, ctx.ip);
      await s.auth.throttle.check(keys);
      await s.auth.throttle.succeed(keys);
      ctx.state.user = user;
      return;
    }
  }
  remembered.delete(key);
  try {
    const user = await s.auth.login({ ...creds, ip: ctx.ip, peer: peerAddress(ctx), headers: ctx.req.headersDistinct });
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(key, { userId: user.id, passwordHash: user.password, epoch: user.sessionEpoch, until: Date.now() + REMEMBER_MS });
    ctx.state.user = user;
  } catch (err) {
    // A wrong password (not a client's first request without credentials) is a failed login.
    if (err instanceof ForbiddenError) {
      auditAs(ctx, { action: 'login-failed', actor: creds.username, detail: 'webdav' });
      throw challenge(err.message);
    }
    // A client cannot ask for a code: a user with two-factor login gives an access token instead.
    if (err instanceof OtpRequiredError) throw challenge('two-factor login is on for this user: use a personal access token as the WebDAV password');
    throw err;
  }
}
