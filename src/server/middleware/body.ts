/** JSON body parsing for the routes that take JSON (uploads stream their bodies instead). */
import type { Middleware } from 'koa';
import { UnsupportedMediaTypeError } from '../../errors.ts';
import type { FmContext, FmMiddleware } from '../types.ts';

/** koa-body is among the slowest modules to load: loaded on first use, or by `fm serve` right after it listens. */
let koaBodyModule: Promise<typeof import('koa-body')> | undefined;
export const loadKoaBody = () => (koaBodyModule ??= import('koa-body'));

export interface JsonBodyOptions {
  /**
   * Parse a body of any Content-Type (login and signup): they act only on the credentials in
   * the body and answer only their caller, and scripts log in with `curl -d`.
   */
  anyContentType?: boolean;
}

/**
 * Parses the body as JSON. A body that does not say `Content-Type: application/json` is parsed
 * only when the request carries a token header (`X-Auth`, `Authorization: Bearer`):
 * filebrowser's web client sends its JSON as text/plain with X-Auth, and no cross-site page can
 * send such a header without a CORS preflight that fm never grants, whereas text/plain, form
 * and multipart bodies are what any page can POST anywhere. Otherwise 415. Bad JSON is 400,
 * too large 413.
 */
export function jsonBody(limit = '1mb', options: JsonBodyOptions = {}): FmMiddleware {
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
    if (!ctx.is('json')) {
      if (hasBody(ctx) && !options.anyContentType && !carriesToken(ctx)) {
        throw new UnsupportedMediaTypeError('send JSON with Content-Type: application/json (text/plain is accepted only with an X-Auth token)');
      }
      ctx.request.headers['content-type'] = 'application/json';
    }
    await parse(ctx, next);
  };
}

function hasBody(ctx: FmContext): boolean {
  return ctx.get('Transfer-Encoding') !== '' || Number(ctx.get('Content-Length') || 0) > 0;
}

/**
 * A token header, which no cross-site page can send without a CORS preflight. Only a Bearer
 * `Authorization` counts: browsers attach Basic credentials (of a proxy in front) by themselves.
 */
function carriesToken(ctx: FmContext): boolean {
  return ctx.get('X-Auth') !== '' || /^Bearer\s/i.test(ctx.get('Authorization'));
}
