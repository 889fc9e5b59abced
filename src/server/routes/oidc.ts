/**
 * GET /api/auth/oidc/login and /api/auth/oidc/callback: single sign-on with an OpenID provider
 * (services/oidc.ts). Both answer redirects only: to the provider, to the login page with
 * `?oidc_login=1` (the session waits in a one-time HttpOnly cookie that the page exchanges with
 * POST /api/auth/oidc/session), or to the login page with `?oidc_error=<reason>`; never an error page.
 */
import Router from '@koa/router';
import type { SharedSettings } from '../../api/settings.ts';
import { UnauthorizedError } from '../../errors.ts';
import { OidcError, FLOW_LIFETIME_MS } from '../../services/oidc.ts';
import { requestSettings } from '../middleware/auth.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const FLOW_COOKIE = 'fm_oidc';
const SESSION_COOKIE = 'fm_oidc_session';
/** The login page takes the session at once; a cookie left over expires soon. */
const SESSION_COOKIE_MS = 60_000;

export function oidcRouter(baseURL: string): FmRouter {
  const router: FmRouter = new Router();
  const cookiePath = `${baseURL}/api/auth/oidc/`;
  // Behind a proxy, protocol and host are those it forwards (when fm trusts it).
  const redirectUri = (ctx: FmContext) => `${ctx.protocol}://${ctx.host}${baseURL}/api/auth/oidc/callback`;
  const clearFlow = (ctx: FmContext) => ctx.cookies.set(FLOW_COOKIE, null, { path: cookiePath });

  /** To the login page with the reason (a word, never a detail: those go to the server log). */
  const fail = (ctx: FmContext, err: unknown) => {
    if (!(err instanceof OidcError)) throw err;
    ctx.services.log.warn(`oidc: login refused (${err.reason}): ${err.message}`);
    ctx.redirect(`${baseURL}/login?oidc_error=${err.reason}`);
  };

  router.get('/api/auth/oidc/login', async (ctx) => {
    const settings = await requestSettings(ctx);
    try {
      if (!oidcAllowed(ctx, settings)) throw new OidcError('off', `single sign-on is not offered with the ${ctx.services.auth.method(settings)} method`);
      const { url, flow } = await ctx.services.oidc.start(settings, redirectUri(ctx), appPath(ctx.query.redirect));
      ctx.cookies.set(FLOW_COOKIE, await ctx.services.oidc.seal(flow), {
        path: cookiePath,
        httpOnly: true,
        sameSite: 'lax', // sent on the provider's top-level redirect back, not on cross-site subrequests
        secure: ctx.secure,
        maxAge: FLOW_LIFETIME_MS,
        overwrite: true,
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(url);
    } catch (err) {
      // The answer is a redirect either way: the action itself says it failed.
      auditAs(ctx, { action: 'login-failed', detail: 'single sign-on' });
      fail(ctx, err);
    }
  });

  router.get('/api/auth/oidc/callback', async (ctx) => {
    const settings = await requestSettings(ctx);
    const flow = await ctx.services.oidc.open(ctx.cookies.get(FLOW_COOKIE));
    // One flow, one callback: a replayed callback finds no flow.
    clearFlow(ctx);
    ctx.set('Cache-Control', 'no-store');
    try {
      if (!oidcAllowed(ctx, settings)) throw new OidcError('off', 'single sign-on is off');
      const url = new URL(`${redirectUri(ctx)}${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      const user = await ctx.services.oidc.finish(settings, url, flow);
      auditAs(ctx, { action: 'login', actor: user.username, actorId: user.id, detail: 'single sign-on' });
      // Never in a URL (logs, history, Referer), and only this browser's page can take it.
      ctx.cookies.set(SESSION_COOKIE, await ctx.services.tokens.issue(user), {
        path: cookiePath,
        httpOnly: true,
        sameSite: 'strict',
        secure: ctx.secure,
        maxAge: SESSION_COOKIE_MS,
        overwrite: true,
      });
      const next = flow?.redirect ? `&redirect=${encodeURIComponent(flow.redirect)}` : '';
      ctx.redirect(`${baseURL}/login?oidc_login=1${next}`);
    } catch (err) {
      fail(ctx, err);
    }
  });

  /** The session a callback left for this browser, once (a POST: the edge refuses it cross-site). */
  router.post('/api/auth/oidc/session', async (ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    ctx.cookies.set(SESSION_COOKIE, null, { path: cookiePath });
    if (!token) throw new UnauthorizedError('no single sign-on session to take: sign in again');
    await ctx.services.tokens.verify(token);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = token;
  });

  return router;
}

/** A path inside the app to return to (never another site: `//host` and `/\\host` are refused). */
function appPath(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || raw.length > 2048) return undefined;
  return raw;
}

/** Single sign-on is offered where the login page is: the json and hook methods. */
function oidcAllowed(ctx: FmContext, settings: SharedSettings): boolean {
  const method = ctx.services.auth.method(settings);
  return Boolean(settings.auth.oidc) && (method === 'json' || method === 'hook');
}
