/**
 * WebDAV's middlewares, loaded on the first request under their prefix: the handlers and their
 * XML parser were a sixth of the code every start compiled before listening.
 */
import { loadOnFirstUse } from '../middleware/lazy.ts';
import type { FmMiddleware } from '../types.ts';
import type { DavOptions } from './index.ts';

export function lazyDavMiddleware(opts: DavOptions): FmMiddleware {
  const { prefix } = opts;
  return loadOnFirstUse(
    (path) => path === prefix || path.startsWith(`${prefix}/`),
    async () => (await import('./index.ts')).davMiddleware(opts),
  );
}

export function lazyDavShareMiddleware(opts: DavOptions): FmMiddleware {
  const { prefix } = opts;
  return loadOnFirstUse(
    (path) => path.startsWith(`${prefix}/`),
    async () => (await import('./share.ts')).davShareMiddleware(opts),
  );
}
