/** POST /api/login, /api/renew, /api/logout, /api/signup. */
import Router from '@koa/router';
import { ConflictError, MethodNotAllowedError, BadRequestError, InsufficientStorageError, errnoToFmError } from '../../errors.ts';
import { addressKey } from '../../services/addresses.ts';
import { authenticate, requestSettings, requireSession } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { LoginBodySchema } from '../../schemas/auth.ts';
import { peerAddress } from '../client-address.ts';
import type { FmMiddleware, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

/** Login and signup bodies are small; larger ones are refused before parsing (413). */
const AUTH_BODY_LIMIT = '64kb';
const loginInput = { body: LoginBodySchema };

/** 405 while signup is off, whatever the fields (a body over the cap is still 413 first). */
const signupEnabled: FmMiddleware = async (ctx, next) => {
  if (!(await requestSettings(ctx)).signup) throw new MethodNotAllowedError('signup is disabled');
  await next();
};

export function authRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.post('/api/login', jsonBody(AUTH_BODY_LIMIT, { anyContentType: true }), validate(loginInput), async (ctx) => {
    const { body } = inputOf(ctx, loginInput);
    auditAs(ctx, { action: 'login', failed: 'login-failed', actor: body.username });
    const user = await ctx.services.auth.login({ ...body, ip: ctx.ip, peer: peerAddress(ctx), headers: ctx.req.headersDistinct });
    auditAs(ctx, { actor: user.username, actorId: user.id });
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = await ctx.services.tokens.issue(user);
  });

  router.post('/api/renew', authenticate, requireSession, async (ctx) => {
    auditAs(ctx, { action: 'renew' });
    ctx.set('X-Renew-Token', 'false');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = await ctx.services.tokens.issue(ctx.state.user!);
  });

  router.post('/api/logout', authenticate, async (ctx) => {
    auditAs(ctx, { action: 'logout' });
    ctx.cookies.set('auth', null);
    try {
      if (ctx.state.claims) await ctx.services.tokens.revoke(ctx.state.claims);
    } catch (err) {
      // The revocation already holds in memory (SessionsRepo); say that it is not stored.
      if (errnoToFmError(err) instanceof InsufficientStorageError) {
        throw new InsufficientStorageError(
          'the database disk is full: you are logged out on this server, but the logout could not be saved and is forgotten if fm restarts',
        );
      }
      throw err;
    }
    ctx.status = 200;
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  router.post('/api/signup', jsonBody(AUTH_BODY_LIMIT, { anyContentType: true }), signupEnabled, validate(loginInput), async (ctx) => {
    const { username, password } = inputOf(ctx, loginInput).body;
    auditAs(ctx, { action: 'user-change', actor: username, detail: `signup ${username}` });
    if (!username.trim() || !password) throw new BadRequestError('username and password are required');
    const keys = [`signup:${addressKey(ctx.ip)}`];
    const throttle = ctx.services.auth.signupThrottle;
    await throttle.check(keys);
    try {
      await ctx.services.users.signup(username, password);
    } catch (err) {
      if (err instanceof ConflictError) throw new ConflictError('username already taken');
      throw err;
    } finally {
      // Every attempt counts, accepted or not: one address cannot create accounts without end.
      await throttle.fail(keys);
    }
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
