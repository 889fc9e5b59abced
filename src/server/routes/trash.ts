/**
 * The caller's trash (docs/trash.md): GET /api/trash lists it, POST /api/trash/{id}?action=restore
 * puts an item back (409 on a clash unless `rename` or `override`), DELETE /api/trash/{id}
 * deletes one for good and DELETE /api/trash empties it.
 */
import Router from '@koa/router';
import { TrashActionQuerySchema, TrashIdParamsSchema } from '../../schemas/trash.ts';
import { ForbiddenError } from '../../errors.ts';
import { auditAs } from '../audit.ts';
import { authenticate } from '../middleware/auth.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import type { FmMiddleware, FmRouter } from '../types.ts';

const restoreInput = { params: TrashIdParamsSchema, query: TrashActionQuerySchema };
const idInput = { params: TrashIdParamsSchema };

/** A token limited to a folder sees only that folder; the trash holds items from the whole scope. */
const refuseFolderTokens: FmMiddleware = async (ctx, next) => {
  if (ctx.state.accessToken?.path) throw new ForbiddenError('an access token limited to a folder cannot use the trash', 'permission_required');
  await next();
};

export function trashRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/trash', authenticate, refuseFolderTokens, async (ctx) => {
    ctx.body = await ctx.services.trash.list(ctx.state.user!);
  });
  router.post('/api/trash/:id', authenticate, refuseFolderTokens, validate(restoreInput), async (ctx) => {
    const { params, query } = inputOf(ctx, restoreInput);
    auditAs(ctx, { action: 'restore', detail: `trash item ${params.id}` });
    const path = await ctx.services.trash.restoreItem(ctx.state.user!, params.id, { rename: query.rename, override: query.override });
    auditAs(ctx, { path });
    ctx.body = { path };
  });
  router.delete('/api/trash/:id', authenticate, refuseFolderTokens, validate(idInput), async (ctx) => {
    const { id } = inputOf(ctx, idInput).params;
    auditAs(ctx, { action: 'delete', detail: `trash item ${id}, for good` });
    await ctx.services.trash.remove(ctx.state.user!, id);
    ctx.status = 204;
  });
  router.delete('/api/trash', authenticate, refuseFolderTokens, async (ctx) => {
    auditAs(ctx, { action: 'delete', detail: 'the trash, emptied' });
    await ctx.services.trash.empty(ctx.state.user!);
    ctx.status = 204;
  });
  return router;
}
