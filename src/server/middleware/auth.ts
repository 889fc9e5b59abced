/** Authentication (sets ctx.state.user) and the coarse permission guards used by routers. */
import { ForbiddenError, UnauthorizedError } from '../../errors.ts';
import type { PermissionName } from '../../api/user.ts';
import { isAccessToken, narrowedUser } from '../../services/access-tokens.ts';
import { peerAddress } from '../client-address.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { FmContext, FmMiddleware } from '../types.ts';

/** The token from `X-Auth` (exactly three parts), `Authorization: Bearer`, or the `auth` cookie on GET/HEAD. */
export function readToken(ctx: FmContext): string | undefined {
  const header = ctx.get('X-Auth');
  if (header && header.split('.').length === 3) return header;
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
  if (bearer) return bearer;
  if (ctx.method === 'GET' || ctx.method === 'HEAD') {
    const cookie = ctx.cookies.get('auth');
    if (cookie && cookie.split('.').length === 3) return cookie;
  }
  return undefined;
}

/** Loads the settings for this request once. */
export async function requestSettings(ctx: FmContext) {
  ctx.state.settings ??= await ctx.services.repos.settings.get();
  return ctx.state.settings;
}

/** What a read-only access token may ask for: reads, in HTTP and WebDAV. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PROPFIND']);

/**
 * Signs the request in with a personal access token (the API's Bearer, WebDAV's Basic password):
 * its user narrowed to the token, read-only tokens refused for every method that writes.
 * Returns the token's user as stored (un-narrowed), for callers that check its name.
 */
export async function signInWithAccessToken(ctx: FmContext, token: string): Promise<UserRecord> {
  const { record, user } = await ctx.services.accessTokens.verify(token);
  if (record.readOnly && !READ_METHODS.has(ctx.method)) throw new ForbiddenError('this access token is read-only', 'permission_required');
  ctx.state.user = narrowedUser(user, record);
  ctx.state.accessToken = record;
  return user;
}

/** Resolves the signed-in user, or throws 401. */
export async function resolveUser(ctx: FmContext): Promise<void> {
  const s = ctx.services;
  const settings = await requestSettings(ctx);
  const method = s.auth.method(settings);
  if (method === 'noauth') {
    const user = await s.repos.users.get(1);
    if (!user) throw new UnauthorizedError('no-auth mode needs user 1');
    ctx.state.user = user;
    return;
  }
  if (method === 'proxy') {
    const user = await s.auth.proxyUser(settings, { peer: peerAddress(ctx), headers: ctx.req.headersDistinct });
    if (user) {
      ctx.state.user = user;
      return;
    }
  }
  const token = readToken(ctx);
  if (!token) throw new UnauthorizedError('login required');
  if (isAccessToken(token)) {
    await signInWithAccessToken(ctx, token);
    return;
  }
  const { claims, user } = await s.tokens.verify(token);
  ctx.state.user = user;
  ctx.state.claims = claims;
  if (s.tokens.shouldRenew(claims, user)) ctx.set('X-Renew-Token', 'true');
}

export const authenticate: FmMiddleware = async (ctx, next) => {
  await resolveUser(ctx);
  await next();
};

/**
 * Routes that hand out or manage credentials (session renewal, access tokens) need a session:
 * an access token must never be exchanged for more than it is.
 */
export const requireSession: FmMiddleware = async (ctx, next) => {
  if (ctx.state.accessToken) throw new ForbiddenError('an access token cannot do this: sign in', 'permission_required');
  await next();
};

export const requireAdmin: FmMiddleware = async (ctx, next) => {
  if (!ctx.state.user?.perm.admin) throw new ForbiddenError('admin rights required');
  await next();
};

/** Guards a route with one or more permissions (admin implies all). */
export function requirePerm(...perms: PermissionName[]): FmMiddleware {
  return async (ctx, next) => {
    const user = ctx.state.user;
    if (!user) throw new UnauthorizedError('login required');
    for (const p of perms) if (!user.perm.admin && !user.perm[p]) throw new ForbiddenError(`${p} permission required`, 'permission_required');
    await next();
  };
}
