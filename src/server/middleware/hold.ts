/** Holds every request until a start-up step has finished (fm serve listens while the first admin is stored). */
import type { FmMiddleware } from '../types.ts';

export function holdUntil(ready: Promise<unknown>): FmMiddleware {
  return async (_ctx, next) => {
    await ready;
    await next();
  };
}
