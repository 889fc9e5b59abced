/**
 * GET /api/usage/{path}: total and used bytes of the file system holding a folder (0/0 for a
 * file); for a user with a quota, the quota and the scope's usage instead (whatever the path).
 */
import Router from '@koa/router';
import type { UsageDto } from '../../api/files.ts';
import { authenticate } from '../middleware/auth.ts';
import { statFs } from '../../services/files/disk/lookup.ts';
import { QuotaService } from '../../services/quotas.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/usage';

async function getUsage(ctx: FmContext): Promise<void> {
  const access = await userAccess(ctx);
  const target = await ctx.services.gate.resolve(access, pathAfter(ctx, PREFIX).path, 'read');
  let usage: UsageDto = { total: 0, used: 0 };
  if (target.isDir) {
    const s = await statFs(target.real);
    usage = { total: s.blocks * s.bsize, used: (s.blocks - s.bfree) * s.bsize };
  }
  const { user } = access;
  if (QuotaService.hasQuota(user)) {
    const scope = await ctx.services.quotas.usageOf(user);
    if (user.quota > 0) usage = { total: user.quota, used: scope.bytes };
    usage = { ...usage, quota: user.quota, quotaFiles: user.quotaFiles, bytes: scope.bytes, files: scope.files };
  }
  ctx.body = usage;
}

export function usageRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, getUsage);
  router.get(`${PREFIX}/{*path}`, authenticate, getUsage);
  return router;
}
