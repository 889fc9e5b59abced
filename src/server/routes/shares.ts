/**
 * Share management for signed-in users (share and download permission required):
 * GET /api/shares, GET/POST /api/share/{path}, DELETE /api/share/{hash}.
 * Responses carry `hasPassword`, never the password hash or the token.
 */
import Router from '@koa/router';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { authenticate, requirePerm } from '../middleware/auth.ts';
import { jsonBody } from '../middleware/body.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import { ShareBodySchema, ShareQuerySchema, shareRequest } from '../../schemas/shares.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { presentShare } from '../present.ts';
import { isHashLike } from '../../storage/repos/shares.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/share';
const canShare = requirePerm('share', 'download');
const createInput = { body: ShareBodySchema, query: ShareQuerySchema };

async function listForPath(ctx: FmContext): Promise<void> {
  const { path: virtual } = pathAfter(ctx, PREFIX);
  ctx.body = (await ctx.services.shares.forPath(ctx.state.user!, virtual)).map((s) => presentShare(s));
}

async function createShare(ctx: FmContext): Promise<void> {
  const { path: virtual } = pathAfter(ctx, PREFIX);
  const { body, query } = inputOf(ctx, createInput);
  const req = shareRequest(body, query);
  auditAs(ctx, { action: 'share-create', path: virtual });
  const access = await userAccess(ctx);
  const share = await ctx.services.shares.create(access, virtual, req);
  auditAs(ctx, { share: share.hash });
  ctx.body = presentShare(share);
}

async function deleteShare(ctx: FmContext): Promise<void> {
  const raw = ctx.path.startsWith(`${PREFIX}/`) ? ctx.path.slice(PREFIX.length + 1) : '';
  auditAs(ctx, { action: 'share-delete', share: raw });
  if (!raw) throw new BadRequestError('the share hash is missing');
  // Only an exact, well-formed hash can name a link (never a prefix or a path).
  if (!isHashLike(raw)) throw new NotFoundError('share not found');
  // Through the drop service: a drop link's counters and unfinished uploads are kept in step.
  await ctx.services.drops.removeLink(ctx.state.user!, raw);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = '200 OK\n';
}

export function sharesRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/shares', authenticate, canShare, async (ctx) => {
    ctx.body = (await ctx.services.shares.list(ctx.state.user!)).map(({ share, owner }) => presentShare(share, owner));
  });
  router.get(PREFIX, authenticate, canShare, listForPath);
  router.get(`${PREFIX}/{*path}`, authenticate, canShare, listForPath);
  router.post(PREFIX, authenticate, canShare, jsonBody('64kb'), validate(createInput), createShare);
  router.post(`${PREFIX}/{*path}`, authenticate, canShare, jsonBody('64kb'), validate(createInput), createShare);
  router.delete(PREFIX, authenticate, canShare, deleteShare);
  router.delete(`${PREFIX}/{*path}`, authenticate, canShare, deleteShare);
  return router;
}
