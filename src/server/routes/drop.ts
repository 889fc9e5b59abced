/**
 * Uploads through an upload-only (drop) link, no login: `POST /api/public/upload/{hash}/{name}`
 * (the body is the file; Content-Length required) and tus 1.0 at `/api/public/tus/{hash}/{name}`
 * (POST creates; the Location adds `?id=`, the upload's random id, which HEAD, PATCH and DELETE
 * need). `name` may hold "/" (a folder drop). The link's password comes as X-SHARE-PASSWORD or
 * its token as `?token=`, as for the other public routes. See services/drops/.
 */
import Router from '@koa/router';
import { z } from 'zod';
import { BadRequestError, FmError, NotFoundError } from '../../errors.ts';
import { encodePath } from '../../services/files/paths.ts';
import type { DropTarget } from '../../services/drops/index.ts';
import { PublicQuerySchema } from '../../schemas/files.ts';
import { queryFlag } from '../../schemas/request.ts';
import { auditAs } from '../audit.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { answerHead, answerPatch, basePrefix, createHeaders, options, patchHeaders, setStatusHeaders, tusHeaders, withMethodOverride } from './tus.ts';
import type { FmContext, FmRouter } from '../types.ts';

const UPLOAD_PREFIX = '/api/public/upload';
const TUS_PREFIX = '/api/public/tus';

const dropInput = {
  query: PublicQuerySchema.extend({
    id: z
      .string()
      .regex(/^[0-9a-f]{40}$/, 'is not an upload id')
      .optional(),
    override: queryFlag,
  }),
};

/** Splits `/{hash}/{name}` after a prefix; the name stays encoded (services/drops/names.ts decodes it). */
function hashAndName(ctx: FmContext, prefix: string): { hash: string; name: string } {
  const rest = ctx.path.startsWith(`${prefix}/`) ? ctx.path.slice(prefix.length + 1) : '';
  const slash = rest.indexOf('/');
  const hash = slash < 0 ? rest : rest.slice(0, slash);
  if (!hash) throw new NotFoundError('share not found');
  return { hash, name: slash < 0 ? '' : rest.slice(slash + 1) };
}

/** Opens the link for the name in the URL; a request about an upload of a link that is gone removes that upload. */
async function openDrop(ctx: FmContext, prefix: string): Promise<DropTarget> {
  const { hash, name } = hashAndName(ctx, prefix);
  // Every hit of the link is recorded, refused ones included (a tus upload's middle chunks are
  // not: see patch); `detail` says what was dropped.
  auditAs(ctx, { action: 'share-hit', share: hash, detail: 'upload' });
  const { token, id, override } = inputOf(ctx, dropInput).query;
  if (override) throw new BadRequestError('override: a drop link never replaces a file (a name that exists becomes "name (1).ext")');
  const header = ctx.get('X-SHARE-PASSWORD');
  try {
    const drop = await ctx.services.drops.open(hash, name, { password: header === '' ? undefined : header, token: token || undefined, ip: ctx.ip });
    auditAs(ctx, { path: drop.target.virtual }); // the path within the link (its access is rooted there)
    return drop;
  } catch (err) {
    if (id && err instanceof NotFoundError) await ctx.services.drops.linkGone(hash, id);
    throw err;
  }
}

/** The id of the upload a HEAD, PATCH or DELETE is about (404 without one). */
function uploadId(ctx: FmContext): string {
  const { id } = inputOf(ctx, dropInput).query;
  if (!id) throw new NotFoundError('no upload in progress for this path: the upload URL needs its ?id=');
  return id;
}

/** A plain upload: the declared length is checked against the link's limits before any byte is read. */
async function upload(ctx: FmContext): Promise<void> {
  try {
    const declared = ctx.get('Content-Length');
    if (!/^\d+$/.test(declared)) throw new FmError(411, 'length_required', 'Content-Length is required (the link checks the size before the upload)');
    const drop = await openDrop(ctx, UPLOAD_PREFIX);
    await ctx.services.drops.receive(drop, ctx.req, Number(declared));
    auditAs(ctx, { bytes: Number(declared) });
  } catch (err) {
    // The body was not (fully) read: close the connection rather than read the rest.
    if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
    throw err;
  }
  ctx.status = 201;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = '201 Created\n';
}

async function create(ctx: FmContext): Promise<void> {
  const { length, metadata } = createHeaders(ctx);
  const drop = await openDrop(ctx, TUS_PREFIX);
  const { id, status } = await ctx.services.drops.createUpload(drop, length, metadata);
  const { token } = inputOf(ctx, dropInput).query;
  const query = new URLSearchParams({ id, ...(token ? { token } : {}) });
  ctx.status = 201;
  ctx.set('Location', `${basePrefix(ctx)}${TUS_PREFIX}/${drop.hash}${encodePath(drop.target.virtual)}?${query}`);
  setStatusHeaders(ctx, status);
  ctx.body = '';
}

async function head(ctx: FmContext): Promise<void> {
  const id = uploadId(ctx);
  answerHead(ctx, await ctx.services.drops.uploadStatus(await openDrop(ctx, TUS_PREFIX), id));
}

async function patch(ctx: FmContext): Promise<void> {
  const { offset, contentLength } = patchHeaders(ctx);
  const id = uploadId(ctx);
  const drop = await openDrop(ctx, TUS_PREFIX);
  const status = await ctx.services.drops.writeUpload(drop, id, offset, ctx.req, contentLength);
  // Recorded once, by the chunk that completes the file.
  if (status.finished) auditAs(ctx, { bytes: status.length });
  else ctx.state.audit = undefined;
  answerPatch(ctx, status);
}

async function terminate(ctx: FmContext): Promise<void> {
  const id = uploadId(ctx);
  await ctx.services.drops.terminateUpload(await openDrop(ctx, TUS_PREFIX), id);
  ctx.status = 204;
}

const post = withMethodOverride({ create, patch, terminate, head });

export function dropRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.post(`${UPLOAD_PREFIX}/{*path}`, validate(dropInput), upload);
  const tus = `${TUS_PREFIX}/{*path}`;
  router.options(tus, tusHeaders, options);
  router.post(tus, tusHeaders, validate(dropInput), post);
  router.get(tus, tusHeaders, validate(dropInput), head); // GET and HEAD
  router.patch(tus, tusHeaders, validate(dropInput), patch);
  router.delete(tus, tusHeaders, validate(dropInput), terminate);
  return router;
}
