/**
 * Personal access tokens of the signed-in user: POST /api/tokens (the secret is in this answer
 * only), GET /api/tokens, DELETE /api/tokens/{id}. Managing tokens needs a session: a token
 * cannot make or remove tokens.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { AccessTokenBodySchema } from '../../schemas/tokens.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { cleanPath } from '../../services/files/paths.ts';
import { authenticate, requestSettings, requireSession } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { presentAccessToken } from '../present.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const createInput = { body: AccessTokenBodySchema };
const idInput = { params: z.object({ id: z.string() }) };

async function createToken(ctx: FmContext): Promise<void> {
  const { body } = inputOf(ctx, createInput);
  const user = ctx.state.user!;
  const { gate } = ctx.services;
  let path = '';
  if (body.path.trim() && cleanPath(body.path).path !== '/') {
    // The folder must exist and be one the user may see now (the gate decides again on every use).
    const access = await gate.access(user, await requestSettings(ctx));
    const folder = await gate.resolve(access, body.path, 'read', { mustExist: true }).catch((err: unknown) => {
      throw err instanceof NotFoundError ? new BadRequestError(`path: ${cleanPath(body.path).path} does not exist`) : err;
    });
    if (!folder.isDir) throw new BadRequestError(`path: ${folder.virtual} is not a folder`);
    path = folder.virtual;
  }
  auditAs(ctx, { action: 'user-change', detail: `user ${user.username}: access token "${body.name}" created` });
  const { record, token } = await ctx.services.accessTokens.create(user, { ...body, path });
  ctx.status = 201;
  ctx.body = { ...presentAccessToken(record), token };
}

export function tokensRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/tokens', authenticate, requireSession, async (ctx) => {
    ctx.body = (await ctx.services.accessTokens.list(ctx.state.user!.id)).map((t) => presentAccessToken(t));
  });
  router.post('/api/tokens', authenticate, requireSession, jsonBody('16kb'), validate(createInput), createToken);
  router.delete('/api/tokens/:id', authenticate, requireSession, validate(idInput), async (ctx) => {
    const { id } = inputOf(ctx, idInput).params;
    auditAs(ctx, { action: 'user-change', detail: `user ${ctx.state.user!.username}: access token ${id} deleted` });
    await ctx.services.accessTokens.remove(id, ctx.state.user!);
    ctx.status = 204;
  });
  return router;
}
