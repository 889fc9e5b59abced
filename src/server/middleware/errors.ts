/**
 * The first middleware: turns every thrown error into a short text/plain answer with the
 * right status. FmErrors and client errors keep their message; anything else is a logged 500.
 * The body stays filebrowser's; the stable machine code goes in `X-Fm-Error` for the UI.
 */
import http from 'node:http';
import { FmError, errnoToFmError } from '../../errors.ts';
import type { FmMiddleware } from '../types.ts';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  headers?: Record<string, string>;
}

/** The response header that carries an error's machine code (FmError.code). */
export const ERROR_CODE_HEADER = 'X-Fm-Error';

/** The code of an error that is not an FmError (koa's body parser, the router...): its status's. */
function codeOfStatus(status: number): string {
  const text = http.STATUS_CODES[status];
  return status >= 500 ? 'internal' : text ? text.toLowerCase().replace(/[^a-z]+/g, '_') : 'error';
}

export function errorBody(status: number, message: string): string {
  const text = http.STATUS_CODES[status] ?? 'Error';
  return message && message.toLowerCase() !== text.toLowerCase() ? `${status} ${text}: ${message}\n` : `${status} ${text}\n`;
}

export const handleErrors: FmMiddleware = async (ctx, next) => {
  try {
    await next();
  } catch (raw) {
    let status = 500;
    let message = '';
    let headers: Record<string, string> = {};
    let code = 'internal';
    const fm = errnoToFmError(raw);
    const httpErr = raw as HttpLikeError;
    if (fm instanceof FmError && (fm.status < 500 || fm.code !== 'database')) {
      status = fm.status;
      message = fm.message;
      headers = fm.headers;
      code = fm.code;
    } else if (!fm && typeof (httpErr?.status ?? httpErr?.statusCode) === 'number' && (httpErr.status ?? httpErr.statusCode)! < 500) {
      status = (httpErr.status ?? httpErr.statusCode)!;
      message = httpErr.expose === false ? '' : (httpErr.message ?? '');
      headers = httpErr.headers ?? {};
      code = codeOfStatus(status);
    } else {
      ctx.services.log.error(`request ${ctx.state.requestId} ${ctx.method} ${ctx.path} failed: ${(raw as Error)?.stack ?? String(raw)}`);
      message = `internal error (request ${ctx.state.requestId})`;
    }
    if (ctx.headerSent || !ctx.writable) {
      // The response is already streaming: all we can do is cut it.
      ctx.req.socket?.destroy();
      return;
    }
    // Reset what the failed handler may have set, keeping the security headers.
    for (const name of ['content-disposition', 'etag', 'last-modified', 'content-encoding', 'content-range', 'accept-ranges']) ctx.remove(name);
    ctx.status = status;
    for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
    ctx.set(ERROR_CODE_HEADER, code);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = errorBody(status, message);
  }
};
