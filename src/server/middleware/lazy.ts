/** Middleware whose module loads on the first request it serves, keeping that module out of start-up. */
import type { FmMiddleware } from '../types.ts';

/** Builds the middleware on the first request `matches` accepts; concurrent first requests share one load, a failed load is retried by the next. */
export function loadOnFirstUse(matches: (path: string) => boolean, load: () => Promise<FmMiddleware>): FmMiddleware {
  let loading: Promise<FmMiddleware> | undefined;
  return async (ctx, next) => {
    if (!matches(ctx.path)) return next();
    loading ??= load().catch((err) => {
      loading = undefined;
      throw err;
    });
    return (await loading)(ctx, next);
  };
}
