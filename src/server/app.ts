/** Koa app assembly. createApp never listens; see start.ts. */
import Koa from 'koa';
import Router from '@koa/router';
import type { Services } from '../services/index.ts';
import { FmError, NotFoundError } from '../errors.ts';
import { handleErrors } from './middleware/errors.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { requestLog } from './middleware/request-log.ts';
import { refuseCrossSite, refuseForeignHosts } from './middleware/edge.ts';
import { useClientAddress } from './client-address.ts';
import type { HostCheck } from './hosts.ts';
import { authRouter } from './routes/auth.ts';
import { usersRouter } from './routes/users.ts';
import { settingsRouter } from './routes/settings.ts';
import { resourcesRouter } from './routes/resources.ts';
import { tusRouter } from './routes/tus.ts';
import { searchStatusRouter } from './routes/search-status.ts';
import { recursiveRouter } from './routes/recursive.ts';
import { previewRouter } from './routes/preview.ts';
import { usageRouter } from './routes/usage.ts';
import { subtitleRouter } from './routes/subtitle.ts';
import { searchRouter } from './routes/search.ts';
import { rawRouter } from './routes/raw.ts';
import { sharesRouter } from './routes/shares.ts';
import { tokensRouter } from './routes/tokens.ts';
import { totpRouter } from './routes/totp.ts';
import { oidcRouter } from './routes/oidc.ts';
import { publicRouter } from './routes/public.ts';
import { trashRouter } from './routes/trash.ts';
import { dropRouter } from './routes/drop.ts';
import { servePage, serveStatic, type WebBundle } from './routes/static.ts';
import { eventsRouter } from './routes/events.ts';
import { analyzeRouter } from './routes/analyze.ts';
import { lazyDavMiddleware, lazyDavShareMiddleware } from './dav/lazy.ts';
import type { FmMiddleware, FmRouter } from './types.ts';
import { recordActivity } from './audit.ts';
import { auditRouter } from './routes/audit.ts';

export interface AppOptions {
  /** '' or a prefix like '/fm' (no trailing slash). */
  baseURL: string;
  version: string;
  web: WebBundle;
  /** Request log writer; undefined disables the request log. */
  requestLog?: (line: string) => void;
  /** Extra middleware run before the routers (e.g. the tus handler, which must see raw bodies). */
  before?: FmMiddleware[];
  /** Extra routers from feature modules. */
  routers?: FmRouter[];
  /** The Host names served (startServer builds it from the listen address); undefined skips the check. */
  hosts?: HostCheck;
  /** Where WebDAV answers (e.g. `/dav`); undefined turns WebDAV off (`fm serve --no-webdav`). */
  webdavPrefix?: string;
}

export type FmApp = Koa;

export function createApp(services: Services, opts: AppOptions): FmApp {
  const app: FmApp = new Koa();
  app.context.services = services;
  app.silent = true;

  app.use(requestLog(opts.requestLog));
  app.use(recordActivity);
  app.use(handleErrors);
  app.use(securityHeaders);
  app.use(useClientAddress);
  if (opts.hosts) app.use(refuseForeignHosts(opts.hosts, opts.baseURL));
  app.use(refuseCrossSite);
  if (opts.baseURL) app.use(stripBaseURL(opts.baseURL));
  // One cheap check per request for changes by other processes (the CLI); reads are memoised.
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/static/') && ctx.path !== '/health') await ctx.services.repos.db.refresh();
    await next();
  });
  for (const mw of opts.before ?? []) app.use(mw);
  if (opts.webdavPrefix) {
    app.use(lazyDavMiddleware({ prefix: opts.webdavPrefix, baseURL: opts.baseURL }));
    app.use(lazyDavShareMiddleware({ prefix: `${opts.webdavPrefix}-share`, baseURL: opts.baseURL }));
  }

  const base: FmRouter = new Router();
  base.get('/health', (ctx) => {
    ctx.body = { status: 'OK' };
  });
  base.get('/static/{*path}', serveStatic(opts.web));

  const routers = [
    base,
    authRouter(),
    usersRouter(),
    settingsRouter(),
    recursiveRouter(), // before resourcesRouter: GET /api/resources/recursive/… is the flat listing
    resourcesRouter(),
    tusRouter(),
    searchStatusRouter(),
    previewRouter(),
    usageRouter(),
    subtitleRouter(),
    searchRouter(),
    rawRouter(),
    sharesRouter(),
    tokensRouter(),
    totpRouter(),
    oidcRouter(opts.baseURL),
    publicRouter(),
    trashRouter(),
    dropRouter(),
    auditRouter(),
    eventsRouter(),
    analyzeRouter(),
    ...(opts.routers ?? []),
  ];
  for (const r of routers) app.use(r.routes());
  app.use(fallback(routers, servePage(opts.web, { baseURL: opts.baseURL, version: opts.version, webdavPrefix: opts.webdavPrefix })));
  return app;
}

/** Unmatched requests: 405 when another method would match, the page for other GETs, else 404. */
function fallback(routers: FmRouter[], page: FmMiddleware): FmMiddleware {
  return async (ctx, next) => {
    const allowed = new Set<string>();
    for (const r of routers) {
      for (const layer of r.match(ctx.path, ctx.method).path) for (const m of layer.methods) allowed.add(m);
    }
    // Thrown, so handleErrors answers them as it answers every error (with the X-Fm-Error code).
    if (allowed.size > 0) throw new FmError(405, 'method_not_allowed', '', { Allow: [...allowed].join(', ') });
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && !ctx.path.startsWith('/api/') && ctx.path !== '/api') {
      return page(ctx, next);
    }
    throw new NotFoundError('');
  };
}

function stripBaseURL(baseURL: string): FmMiddleware {
  return async (ctx, next) => {
    if (ctx.path === baseURL) {
      ctx.status = 301;
      ctx.redirect(`${baseURL}/${ctx.querystring ? `?${ctx.querystring}` : ''}`);
      return;
    }
    if (ctx.path.startsWith(`${baseURL}/`)) ctx.path = ctx.path.slice(baseURL.length);
    await next();
  };
}
