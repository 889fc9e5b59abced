/** GET/POST /api/users and GET/PUT/DELETE /api/users/{id}. */
import Router from '@koa/router';
import { BadRequestError, ForbiddenError, NotFoundError } from '../../errors.ts';
import { UserWriteSchema } from '../../schemas/user.ts';
import { authenticate, requestSettings, requireAdmin } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { queryFlag } from '../files-request.ts';
import { presentUser } from '../present.ts';
import type { FmContext, FmRouter } from '../types.ts';

function parseWrite(body: unknown) {
  const r = UserWriteSchema.safeParse(body);
  if (!r.success) throw new BadRequestError('expected {"what":"user","which":[...],"data":{...}}');
  return r.data;
}

function parseId(ctx: FmContext): number {
  const raw = ctx.params.id ?? '';
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new NotFoundError('user not found');
  return id;
}

/** The current password is required under json auth (filebrowser's rule). */
async function needsCurrentPassword(ctx: FmContext): Promise<boolean> {
  return ctx.services.auth.method(await requestSettings(ctx)) === 'json';
}

export function usersRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.get('/api/users', authenticate, requireAdmin, async (ctx) => {
    const users = await ctx.services.repos.users.list();
    ctx.body = users.map((u) => presentUser(u, ctx.state.user!));
  });

  router.post('/api/users', authenticate, requireAdmin, jsonBody(), async (ctx) => {
    const body = parseWrite(ctx.request.body);
    if (body.which.length > 0) throw new BadRequestError('"which" must be empty when creating a user');
    if (await needsCurrentPassword(ctx)) await ctx.services.users.checkCurrentPassword(ctx.state.user!, body.current_password);
    const data = body.data as Record<string, unknown>;
    if (typeof data.password !== 'string' || !data.password) throw new BadRequestError('password is empty');
    if (typeof data.username !== 'string') throw new BadRequestError('username is empty');
    const { id: _ignored, ...rest } = ctx.services.users.parseData({ ...data, id: 0 });
    const user = await ctx.services.users.create(
      { data: { ...rest, scope: typeof data.scope === 'string' ? data.scope : '' } },
      undefined,
      { allowLaunchers: queryFlag(ctx, 'force') },
    );
    ctx.status = 201;
    ctx.set('Location', `/settings/users/${user.id}`);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '201 Created\n';
  });

  router.get('/api/users/:id', authenticate, async (ctx) => {
    const id = parseId(ctx);
    const viewer = ctx.state.user!;
    if (!viewer.perm.admin && viewer.id !== id) throw new ForbiddenError('you may only read your own profile');
    const user = await ctx.services.repos.users.mustGet(id);
    ctx.body = presentUser(user, viewer);
  });

  router.put('/api/users/:id', authenticate, jsonBody(), async (ctx) => {
    const id = parseId(ctx);
    const body = parseWrite(ctx.request.body);
    const actor = ctx.state.user!;
    await ctx.services.users.update(actor, id, body, await needsCurrentPassword(ctx), {
      allowLaunchers: queryFlag(ctx, 'force'),
      keepSession: ctx.state.claims?.jti,
    });
    // The caller's token now carries stale claims (and, after a password change, is the only one
    // of their sessions left): clients renew it when told to.
    if (id === actor.id) ctx.set('X-Renew-Token', 'true');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  router.delete('/api/users/:id', authenticate, jsonBody(), async (ctx) => {
    const id = parseId(ctx);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const current = typeof body.current_password === 'string' ? body.current_password : undefined;
    const removed = await ctx.services.users.remove(ctx.state.user!, id, current, await needsCurrentPassword(ctx));
    await ctx.services.onUserDeleted?.(removed);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
