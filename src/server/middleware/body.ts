/** JSON body parsing for the routes that take JSON (uploads stream their bodies instead). */
import type { Middleware } from 'koa';
import type { FmMiddleware } from '../types.ts';

/** koa-body is among the slowest modules to load: loaded on first use, or by `fm serve` right after it listens. */
let koaBodyModule: Promise<typeof import('koa-body')> | undefined;
export const loadKoaBody = () => (koaBodyModule ??= import('koa-body'));

/**
 * Parses the body as JSON whatever its Content-Type says, as filebrowser does: its clients
 * (and curl -d) often send JSON as text/plain or form-encoded. Bad JSON is 400, too large 413.
 */
export function jsonBody(limit = '1mb'): FmMiddleware {
  let parse: Middleware | undefined;
  return async (ctx, next) => {
    if (!parse) {
      const { koaBody, HttpMethodEnum } = await loadKoaBody();
      parse ??= koaBody({
        json: true,
        jsonStrict: false,
        jsonLimit: limit,
        text: false,
        urlencoded: false,
        multipart: false,
        parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
      });
    }
    if (!ctx.is('json')) ctx.request.headers['content-type'] = 'application/json';
    await parse(ctx, next);
  };
}
