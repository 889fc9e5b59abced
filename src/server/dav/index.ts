/**
 * WebDAV (RFC 4918, classes 1 and 2) under a prefix, `/dav` by default: one middleware that
 * signs the user in (Basic, dav/auth.ts) and dispatches on the method. Every handler goes
 * through the gate and the files API's services; docs/webdav.md says what clients get.
 */
import { BadRequestError, FmError } from '../../errors.ts';
import { davSignIn } from './auth.ts';
import { handleCopyMove } from './copy-move.ts';
import { handleLock, handleUnlock } from './lock.ts';
import { DAV_METHODS, handleDelete, handleGet, handleMkcol, handleOptions, handlePut } from './methods.ts';
import { handlePropfind } from './props.ts';
import { handleProppatch } from './proppatch.ts';
import { davRequest, type DavRequest } from './request.ts';
import type { FmContext, FmMiddleware } from '../types.ts';

export interface DavOptions {
  /** Where WebDAV answers, e.g. `/dav` (no trailing slash). */
  prefix: string;
  /** The server's base URL ('' or e.g. `/fm`), which every href starts with. */
  baseURL: string;
}

type Handler = (ctx: FmContext, req: DavRequest) => Promise<void> | void;

const HANDLERS: Record<string, Handler> = {
  OPTIONS: handleOptions,
  GET: handleGet,
  HEAD: handleGet,
  PUT: handlePut,
  DELETE: handleDelete,
  MKCOL: handleMkcol,
  COPY: handleCopyMove,
  MOVE: handleCopyMove,
  PROPFIND: handlePropfind,
  PROPPATCH: handleProppatch,
  LOCK: handleLock,
  UNLOCK: handleUnlock,
};

export function davMiddleware(opts: DavOptions): FmMiddleware {
  const { prefix } = opts;
  const base = opts.baseURL + prefix;
  return async (ctx, next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    ctx.set('DAV', '1, 2');
    await davSignIn(ctx);
    // A fragment is never sent to a server; one that arrives would be ignored silently (and a
    // DELETE of `/dav/a/#b` would remove `/dav/a/`): refused instead.
    if (ctx.url.includes('#')) throw new BadRequestError('a request URL cannot have a fragment (#)');
    const handler = HANDLERS[ctx.method];
    if (!handler) throw new FmError(405, 'method_not_allowed', `${ctx.method} is not a WebDAV method fm answers`, { Allow: DAV_METHODS.join(', ') });
    await handler(ctx, await davRequest(ctx, base, prefix));
  };
}
