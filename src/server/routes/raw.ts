/** /api/raw/{path}: a file (Range, conditional requests) or an archive of a folder or selection. */
import Router from '@koa/router';
import { authenticate } from '../middleware/auth.ts';
import { serveDownload } from '../../services/files/download.ts';
import { pathAfter, queryFlag, queryStrict, queryString, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/raw';

async function getRaw(ctx: FmContext): Promise<void> {
  await serveDownload(ctx.services.gate, ctx, {
    access: await userAccess(ctx),
    virtual: pathAfter(ctx, PREFIX).path,
    inline: queryFlag(ctx, 'inline'),
    files: queryStrict(ctx, 'files'),
    algo: queryString(ctx, 'algo'),
  });
}

export function rawRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, getRaw);
  router.get(`${PREFIX}/{*path}`, authenticate, getRaw);
  return router;
}
