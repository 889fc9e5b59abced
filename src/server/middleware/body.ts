/** JSON body parsing for the routes that take JSON (uploads stream their bodies instead). */
import { koaBody, HttpMethodEnum } from 'koa-body';
import type { FmMiddleware } from '../types.ts';

/**
 * Parses the body as JSON whatever its Content-Type says, as filebrowser does: its clients
 * (and curl -d) often send JSON as text/plain or form-encoded. Bad JSON is 400, too large 413.
 */
export function jsonBody(limit = '1mb'): FmMiddleware {
  const parse = koaBody({
    json: true,
    jsonStrict: false,
    jsonLimit: limit,
    text: false,
    urlencoded: false,
    multipart: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  return async (ctx, next) => {
    if (!ctx.is('json')) ctx.request.headers['content-type'] = 'application/json';
    await parse(ctx, next);
  };
}
