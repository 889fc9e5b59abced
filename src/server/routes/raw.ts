/** /api/raw/{path}: a file (Range, conditional requests) or an archive of a folder or selection. */
import Router from '@koa/router';
import { DownloadQuerySchema } from '../../schemas/files.ts';
import { authenticate } from '../middleware/auth.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { serveDownload } from '../download.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/raw';
const rawInput = { query: DownloadQuerySchema };

async function getRaw(ctx: FmContext): Promise<void> {
  const virtual = pathAfter(ctx, PREFIX).path;
  auditAs(ctx, { action: 'download', path: virtual });
  await serveDownload(ctx, {
    access: await userAccess(ctx),
    virtual,
    ...inputOf(ctx, rawInput).query,
  });
}

export function rawRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, validate(rawInput), getRaw);
  router.get(`${PREFIX}/{*path}`, authenticate, validate(rawInput), getRaw);
  return router;
}
