/**
 * /api/tus/{path}: tus 1.0 (core, creation, termination, expiration), addressed by target path
 * as filebrowser and its UI do: `POST /api/tus/{path}?override=` creates, and HEAD, PATCH and
 * DELETE act on the same URL (the Location). Bodies are streamed straight to the upload service.
 * See docs/decisions.md ("tus handler") for why this is not @tus/server.
 */
import Router from '@koa/router';
import { BadRequestError, FmError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../../errors.ts';
import { encodePath } from '../../services/files/paths.ts';
import type { Target } from '../../services/files/gate.ts';
import type { Op } from '../../services/files/gate.ts';
import type { UploadStatus } from '../../services/uploads/index.ts';
import { authenticate, requestSettings } from '../middleware/auth.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { WriteQuerySchema } from '../../schemas/files.ts';
import type { FmContext, FmMiddleware, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/tus';
export const TUS_VERSION = '1.0.0';
const EXTENSIONS = 'creation,termination,expiration';
export const OFFSET_TYPE = 'application/offset+octet-stream';
export const MAX_METADATA = 4096;

/** Tus-Resumable on every answer; a client speaking another version gets 412. */
export const tusHeaders: FmMiddleware = async (ctx, next) => {
  ctx.set('Tus-Resumable', TUS_VERSION);
  const asked = ctx.get('Tus-Resumable');
  // filebrowser's clients and scripts send no Tus-Resumable: accept its absence.
  if (asked && asked !== TUS_VERSION && ctx.method !== 'OPTIONS') {
    throw new FmError(412, 'precondition_failed', `tus version ${asked} is not supported`, { 'Tus-Version': TUS_VERSION });
  }
  await next();
};

/** A non-negative integer header; 400 when malformed, 413 when beyond what a file can be. */
export function byteCount(ctx: FmContext, name: string): number {
  const raw = ctx.get(name);
  if (!/^\d+$/.test(raw)) throw new BadRequestError(raw ? `${name} must be a non-negative integer` : `${name} is required`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new PayloadTooLargeError(`${name} is too large`);
  return n;
}

/** The target of this request, through the gate, for `op`. */
async function target(ctx: FmContext, op: Op): Promise<Target> {
  const { path: virtual, trailingSlash } = pathAfter(ctx, PREFIX);
  if (trailingSlash) throw new BadRequestError('folders are created with POST /api/resources');
  const access = await userAccess(ctx);
  return ctx.services.gate.resolve(access, virtual, op, { allowRoot: false, mustExist: false });
}

/** An upload is recorded once, by the request that completes it (failed chunks are retried, not logged). */
function auditIfComplete(ctx: FmContext, t: Target, status: UploadStatus): void {
  if (status.finished) auditAs(ctx, { action: 'upload', path: t.virtual, bytes: status.length });
}

export function setStatusHeaders(ctx: FmContext, status: UploadStatus): void {
  ctx.set('Upload-Offset', String(status.offset));
  if (status.expires) ctx.set('Upload-Expires', status.expires.toUTCString());
}

/** The URL prefix the client used (baseURL), which the app stripped from ctx.path. */
export function basePrefix(ctx: FmContext): string {
  const original = ctx.originalUrl.split('?')[0];
  return original.endsWith(ctx.path) ? original.slice(0, original.length - ctx.path.length) : '';
}

const createInput = { query: WriteQuerySchema };

/** A creation's headers: the declared length (deferred lengths are refused) and the metadata. */
export function createHeaders(ctx: FmContext): { length: number; metadata: string } {
  if (ctx.get('Upload-Defer-Length')) throw new BadRequestError('deferred upload lengths are not supported');
  const length = byteCount(ctx, 'Upload-Length');
  const metadata = ctx.get('Upload-Metadata');
  if (metadata.length > MAX_METADATA) throw new BadRequestError('Upload-Metadata is too long');
  return { length, metadata };
}

async function create(ctx: FmContext): Promise<void> {
  const { length, metadata } = createHeaders(ctx);
  const t = await target(ctx, 'create');
  const status = await ctx.services.uploads.create(t, { length, override: inputOf(ctx, createInput).query.override, metadata });
  ctx.status = 201;
  ctx.set('Location', `${basePrefix(ctx)}${PREFIX}${encodePath(t.virtual)}`);
  setStatusHeaders(ctx, status);
  auditIfComplete(ctx, t, status);
  ctx.body = '';
}

/** A HEAD's answer: the upload's offset, length and metadata, never cached. */
export function answerHead(ctx: FmContext, status: UploadStatus): void {
  ctx.set('Cache-Control', 'no-store');
  setStatusHeaders(ctx, status);
  ctx.set('Upload-Length', String(status.length));
  if (status.metadata) ctx.set('Upload-Metadata', status.metadata);
  ctx.status = 200;
  ctx.body = '';
}

/**
 * A PATCH's headers, checked before its body is read: the offset, and the declared length when
 * there is one. Until the chunk is taken the answer closes the connection: an early answer must
 * not wait for (or keep reading) a body it refused (`answerPatch` takes that back).
 */
export function patchHeaders(ctx: FmContext): { offset: number; contentLength?: number } {
  ctx.set('Connection', 'close');
  const type = ctx.get('Content-Type').split(';')[0].trim().toLowerCase();
  if (type !== OFFSET_TYPE) throw new UnsupportedMediaTypeError(`Content-Type must be ${OFFSET_TYPE}`);
  const offset = byteCount(ctx, 'Upload-Offset');
  const declared = ctx.get('Content-Length');
  return { offset, contentLength: /^\d+$/.test(declared) ? Number(declared) : undefined };
}

/** A taken chunk's answer (204 with the new offset). */
export function answerPatch(ctx: FmContext, status: UploadStatus): void {
  ctx.remove('Connection');
  setStatusHeaders(ctx, status);
  ctx.status = 204;
}

/** POST with X-HTTP-Method-Override (tus-js-client's overridePatchMethod) acts as that method; else it creates. */
export function withMethodOverride(h: Record<'create' | 'patch' | 'terminate' | 'head', (ctx: FmContext) => Promise<void>>) {
  return (ctx: FmContext): Promise<void> => {
    const override = ctx.get('X-HTTP-Method-Override').toUpperCase();
    if (override === 'PATCH') return h.patch(ctx);
    if (override === 'DELETE') return h.terminate(ctx);
    if (override === 'HEAD') return h.head(ctx);
    return h.create(ctx);
  };
}

async function head(ctx: FmContext): Promise<void> {
  answerHead(ctx, await ctx.services.uploads.status(await target(ctx, 'create')));
}

async function patch(ctx: FmContext): Promise<void> {
  const { offset, contentLength } = patchHeaders(ctx);
  const t = await target(ctx, 'create');
  const status = await ctx.services.uploads.write(t, offset, ctx.req, contentLength);
  answerPatch(ctx, status);
  auditIfComplete(ctx, t, status);
}

async function terminate(ctx: FmContext): Promise<void> {
  await ctx.services.uploads.terminate(await target(ctx, 'delete'));
  ctx.status = 204;
}

const post = withMethodOverride({ create, patch, terminate, head });

/** Capability discovery; needs no login (it reveals only the protocol and the size limit). */
export async function options(ctx: FmContext): Promise<void> {
  ctx.set('Tus-Version', TUS_VERSION);
  ctx.set('Tus-Extension', EXTENSIONS);
  const settings = await requestSettings(ctx);
  if (settings.maxUploadSize > 0) ctx.set('Tus-Max-Size', String(settings.maxUploadSize));
  ctx.status = 204;
}

export function tusRouter(): FmRouter {
  const router: FmRouter = new Router();
  for (const p of [PREFIX, `${PREFIX}/{*path}`]) {
    router.options(p, tusHeaders, options);
    router.post(p, tusHeaders, authenticate, validate(createInput), post);
    router.get(p, tusHeaders, authenticate, head); // GET and HEAD
    router.patch(p, tusHeaders, authenticate, patch);
    router.delete(p, tusHeaders, authenticate, terminate);
  }
  return router;
}
