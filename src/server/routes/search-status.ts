/** GET /api/search-status (admins): the search index's state. */
import Router from '@koa/router';
import { authenticate, requireAdmin } from '../middleware/auth.ts';
import type { FmRouter } from '../types.ts';

export function searchStatusRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/search-status', authenticate, requireAdmin, (ctx) => {
    ctx.body = ctx.services.searchIndex.status();
  });
  return router;
}
