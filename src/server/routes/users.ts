/** GET/POST /api/users and GET/PUT/DELETE /api/users/{id}. */
import Router from '@koa/router';
import { ForceQuerySchema, UserCreateSchema, UserDeleteBodySchema, UserIdParamsSchema, UserWriteSchema } from '../../schemas/user.ts';
import { authenticate, requestSettings, requireAdmin } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { presentUser } from '../present.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs, changedKeys } from '../audit.ts';

const createInput = { body: UserCreateSchema, query: ForceQuerySchema };
const readInput = { params: UserIdParamsSchema };
const updateInput = { params: UserIdParamsSchema, body: UserWriteSchema, query: ForceQuerySchema };
const deleteInput = { params: UserIdParamsSchema, body: UserDeleteBodySchema };

/** The current password is required under json auth (filebrowser's rule). */
async function needsCurrentPassword(ctx: FmContext): Promise<boolean> {
  return ctx.services.auth.method(await requestSettings(ctx)) === 'json';
}

/** The user's name for the audit log, or their id when there is no such user. */
async function userName(ctx: FmContext, id: number): Promise<string> {
  return (await ctx.services.repos.users.get(id))?.username ?? `#${id}`;
}

/** The names of the fields a change asks for (never their values: passwords are among them). */
function askedFields(which: string[], data: Record<string, unknown>): string {
  const named = which.filter((w) => w !== 'all');
  return (named.length > 0 ? named : Object.keys(data).filter((k) => k !== 'id')).join(', ');
}

/** Fields of the record that change as a consequence, not as the change itself. */
const BOOKKEEPING = ['sessionEpoch', 'updatedAt', 'keptSession'];

export function usersRouter(): FmRouter {
  const router: FmRouter = new Router();

  router.get('/api/users', authenticate, requireAdmin, async (ctx) => {
    const users = await ctx.services.users.list();
    ctx.body = users.map((u) => presentUser(u, ctx.state.user!));
  });

  router.post('/api/users', authenticate, requireAdmin, jsonBody(), validate(createInput), async (ctx) => {
    const { body, query } = inputOf(ctx, createInput);
    auditAs(ctx, { action: 'user-change', detail: `user ${body.data.username}: created` });
    if (await needsCurrentPassword(ctx)) await ctx.services.users.checkCurrentPassword(ctx.state.user!, body.current_password);
    const { id: _ignored, ...rest } = ctx.services.users.parseData({ ...body.data, id: 0 });
    const user = await ctx.services.users.create({ data: { ...rest, scope: body.data.scope } }, undefined, { allowLaunchers: query.force });
    ctx.status = 201;
    ctx.set('Location', `/settings/users/${user.id}`);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '201 Created\n';
  });

  router.get('/api/users/:id', authenticate, validate(readInput), async (ctx) => {
    const { id } = inputOf(ctx, readInput).params;
    const viewer = ctx.state.user!;
    ctx.body = presentUser(await ctx.services.users.read(viewer, id), viewer);
  });

  router.put('/api/users/:id', authenticate, jsonBody(), validate(updateInput), async (ctx) => {
    const { params, body, query } = inputOf(ctx, updateInput);
    const { id } = params;
    const actor = ctx.state.user!;
    const before = await ctx.services.repos.users.get(id);
    const name = before?.username ?? `#${id}`;
    auditAs(ctx, { action: 'user-change', detail: `user ${name}: asked to change ${askedFields(body.which, body.data)}` });
    const after = await ctx.services.users.update(actor, id, body, await needsCurrentPassword(ctx), {
      allowLaunchers: query.force,
      keepSession: ctx.state.claims?.jti,
    });
    if (before) auditAs(ctx, { detail: `user ${name}: changed ${changedKeys(before, after, BOOKKEEPING).join(', ') || 'nothing'}` });
    // The caller's token now carries stale claims (and, after a password change, is the only one
    // of their sessions left): clients renew it when told to.
    if (id === actor.id) ctx.set('X-Renew-Token', 'true');
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  router.delete('/api/users/:id', authenticate, jsonBody(), validate(deleteInput), async (ctx) => {
    const { params, body } = inputOf(ctx, deleteInput);
    auditAs(ctx, { action: 'user-change', detail: `user ${await userName(ctx, params.id)}: deleted` });
    const removed = await ctx.services.users.remove(ctx.state.user!, params.id, body.current_password, await needsCurrentPassword(ctx));
    await ctx.services.onUserDeleted?.(removed);
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = '200 OK\n';
  });

  return router;
}
