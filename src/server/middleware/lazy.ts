/** Middleware whose module loads on the first request it serves, keeping that module out of start-up. */
import { FmError } from '../../errors.ts';
import type { FmMiddleware } from '../types.ts';

/**
 * Builds the middleware on the first request `matches` accepts; concurrent first requests share one
 * load. A failed load answers 503 (logged) and is retried by the next request.
 */
export function loadOnFirstUse(matches: (path: string) => boolean, load: () => Promise<FmMiddleware>): FmMiddleware {
  let loading: Promise<FmMiddleware> | undefined;
  return async (ctx, next) => {
    if (!matches(ctx.path)) return next();
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    let mw: FmMiddleware;
    try {
      mw = await loading;
    } catch (err) {
      ctx.services.log.error(`request ${ctx.state.requestId} ${ctx.method} ${ctx.path}: loading its handlers failed: ${(err as Error)?.stack ?? String(err)}`);
      throw new FmError(503, 'unavailable', 'this part of the server could not be loaded; try again', { 'Retry-After': '1' });
    }
    return mw(ctx, next);
  };
}
