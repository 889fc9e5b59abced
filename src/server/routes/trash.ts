/**
 * The caller's trash (docs/trash.md): GET /api/trash lists it, POST /api/trash/{id}?action=restore
 * puts an item back (409 on a clash unless `rename` or `override`), DELETE /api/trash/{id}
 * deletes one for good and DELETE /api/trash empties it.
 */
import Router from '@koa/router';
import { TrashActionQuerySchema, TrashIdParamsSchema } from '../../schemas/trash.ts';
import { ForbiddenError } from '../../errors.ts';
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
    const path = await ctx.services.trash.restoreItem(ctx.state.user!, params.id, { rename: query.rename, override: query.override });
    ctx.body = { path };
  });
  router.delete('/api/trash/:id', authenticate, refuseFolderTokens, validate(idInput), async (ctx) => {
    await ctx.services.trash.remove(ctx.state.user!, inputOf(ctx, idInput).params.id);
    ctx.status = 204;
  });
  router.delete('/api/trash', authenticate, refuseFolderTokens, async (ctx) => {
    await ctx.services.trash.empty(ctx.state.user!);
    ctx.status = 204;
  });
  return router;
}
