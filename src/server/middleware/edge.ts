/**
 * The HTTP edge, before any route: a Host the server does not answer to is refused (DNS
 * rebinding), and so is a state-changing request from another site (CSRF). Both apply in every
 * auth mode, to the tus handler and public share routes as to the rest.
 */
import { ForbiddenError, MisdirectedRequestError } from '../../errors.ts';
import type { HostCheck } from '../hosts.ts';
import { crossSiteRefusal } from '../origin.ts';
import type { FmMiddleware } from '../types.ts';

/** Refuses (421) requests whose Host is not one of the server's names; `/health` stays open for monitors. */
export function refuseForeignHosts(hosts: HostCheck, baseURL: string): FmMiddleware {
  const open = new Set(['/health', `${baseURL}/health`]);
  return async (ctx, next) => {
    if (!open.has(ctx.path)) {
      const refusal = hosts.refusal(ctx.get('Host'));
      if (refusal) throw new MisdirectedRequestError(refusal);
    }
    await next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses (403) anything but GET/HEAD/OPTIONS with a foreign Origin or `Sec-Fetch-Site: cross-site`. */
export const refuseCrossSite: FmMiddleware = async (ctx, next) => {
  if (!SAFE_METHODS.has(ctx.method)) {
    const refusal = crossSiteRefusal({ origin: ctx.get('Origin'), host: ctx.get('Host') || undefined, fetchSite: ctx.get('Sec-Fetch-Site') });
    if (refusal) throw new ForbiddenError(refusal);
  }
  await next();
};
