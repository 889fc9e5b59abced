/**
 * GET /api/audit: the audit log, newest first, filtered and paged (`X-Total-Count` says how many
 * match); `format=csv` answers CSV (RFC 4180). Admins read everyone's entries, other users only
 * their own: a `user=` naming someone else is refused (403), not silently narrowed.
 * A personal access token limited to a folder is refused (the log names files outside it).
 * GET /api/audit/status: entries lost since start and the retention.
 */
import Router from '@koa/router';
import { auditCsv } from '../../api/audit.ts';
import { ForbiddenError } from '../../errors.ts';
import { AuditQuerySchema } from '../../schemas/audit.ts';
import type { AuditFilter } from '../../storage/repos/audit.ts';
import { authenticate } from '../middleware/auth.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import type { FmContext, FmRouter } from '../types.ts';

const listInput = { query: AuditQuerySchema };

async function listEntries(ctx: FmContext): Promise<void> {
  const { query } = inputOf(ctx, listInput);
  const user = ctx.state.user!;
  // Its entries name files outside its folder.
  if (ctx.state.accessToken?.path) throw new ForbiddenError('a token limited to a folder cannot read the activity log', 'permission_required');
  const filter: AuditFilter = { since: query.since, until: query.until, action: query.action, path: query.path };
  if (user.perm.admin) {
    filter.actor = query.user;
  } else {
    if (query.user !== undefined && query.user !== user.username) throw new ForbiddenError("only admins read other users' activity");
    filter.actorId = user.id;
  }
  const { audit } = ctx.services;
  const { entries, total } = await audit.find(filter, { limit: query.limit, offset: query.offset });
  ctx.set('X-Total-Count', String(total));
  ctx.set('Cache-Control', 'no-store');
  if (query.format === 'csv') {
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', 'attachment; filename="fm-audit.csv"');
    ctx.body = auditCsv(entries);
    return;
  }
  ctx.body = entries;
}

export function auditRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/audit', authenticate, validate(listInput), listEntries);
  router.get('/api/audit/status', authenticate, async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await ctx.services.audit.status();
  });
  return router;
}
