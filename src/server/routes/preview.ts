/**
 * GET /api/preview/{thumb|big}/{path}: image previews (see services/previews.ts). Needs the
 * download permission. Images that get no conversion (GIF, SVG, BMP…, or when thumbnails or
 * resizing are turned off in the settings) are answered with the original file, under the
 * same protective headers as raw downloads. `?key=<mtime ms>` (what the UI sends) makes the
 * answer cacheable for a long time; without it clients revalidate with the ETag.
 */
import { sendUserFileInline } from '../download.ts';
import Router from '@koa/router';
import { z } from 'zod';
import { UnsupportedError } from '../../errors.ts';
import { authenticate, requestSettings } from '../middleware/auth.ts';
import type { Target } from '../../services/files/gate.ts';
import { baseName, parseRequestPath } from '../../services/files/paths.ts';
import { displayName } from '../../services/files/disk/names.ts';
import type { FileHandle } from '../../services/files/disk/types.ts';
import { openCachedPreview } from '../../services/preview-cache.ts';
import { PREVIEW_FORMAT_VERSION, PREVIEW_SIZES, previewPlan, type PreviewOutcome, type PreviewSize } from '../../services/previews.ts';
import { userAccess } from '../files-request.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { PreviewQuerySchema } from '../../schemas/files.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/preview/';
const LONG_CACHE = 'private, max-age=31536000, immutable';
/** `:size` of a preview URL, for this route and the share's (routes/public.ts). */
export const PreviewSizeParams = z.object({
  size: z.enum(PREVIEW_SIZES, { error: (i) => `unknown preview size "${String(i.input)}" (use thumb or big)` }),
});
const previewInput = { params: PreviewSizeParams, query: PreviewQuerySchema };

async function getPreview(ctx: FmContext): Promise<void> {
  const rest = ctx.path.slice(PREFIX.length);
  const slash = rest.indexOf('/');
  const { size } = inputOf(ctx, previewInput).params;
  const { path: virtual } = parseRequestPath(slash < 0 ? '/' : rest.slice(slash));
  auditAs(ctx, { action: 'preview', path: virtual, detail: size });
  const access = await userAccess(ctx);
  const target = await ctx.services.gate.resolve(access, virtual, 'download');
  await servePreview(ctx, target, size, inputOf(ctx, previewInput).query.key);
}

/**
 * Answers the preview of a file the caller may download (resolved by the caller through the
 * gate: the user's access here, a share's in routes/public.ts).
 */
export async function servePreview(ctx: FmContext, target: Target, size: PreviewSize, key: string | undefined): Promise<void> {
  if (!target.stat?.isFile() || previewPlan(target.virtual) === undefined) {
    throw new UnsupportedError(`${displayName(baseName(target.virtual)) || 'the root folder'} is not an image`);
  }
  const settings = await requestSettings(ctx);
  const convert = size === 'thumb' ? settings.enableThumbnails : settings.resizePreview;

  const st = target.stat;
  const stamp = Math.trunc(st.mtimeMs);
  ctx.status = 200;
  const variant = convert ? `${size}-v${PREVIEW_FORMAT_VERSION}` : `${size}-raw`;
  ctx.set('ETag', `"${variant}-${st.ino.toString(36)}-${Math.round(st.mtimeMs * 1000).toString(36)}-${st.size.toString(36)}"`);
  ctx.lastModified = new Date(stamp);
  // Set only on success: an error must never be cached for a year.
  const cacheControl = keyMatches(key, stamp) ? LONG_CACHE : 'private, no-cache';
  if (ctx.fresh) {
    ctx.status = 304;
    ctx.set('Cache-Control', cacheControl);
    return;
  }
  let outcome: PreviewOutcome = { kind: 'raw' };
  if (convert) {
    const gone = clientGone(ctx);
    try {
      outcome = await ctx.services.previews.preview(target, size, gone);
    } catch (err) {
      if (!gone.aborted) throw err;
      ctx.respond = false; // the client left while the conversion waited: nobody to answer
      return;
    }
  }
  await send(ctx, target, size, outcome);
  ctx.set('Cache-Control', cacheControl);
}

/** The UI sends `key=<Date.parse(modified)>`; an RFC 3339 date is accepted too. */
function keyMatches(key: string | undefined, stamp: number): boolean {
  if (!key) return false;
  const n = /^\d+$/.test(key) ? Number(key) : Date.parse(key);
  return n === stamp;
}

async function send(ctx: FmContext, target: Target, size: PreviewSize, outcome: PreviewOutcome, retry = true): Promise<void> {
  switch (outcome.kind) {
    case 'buffer':
      ctx.type = outcome.type;
      ctx.body = outcome.data;
      return;
    case 'file': {
      let fh: FileHandle;
      try {
        fh = await openCachedPreview(outcome.file);
      } catch (err) {
        // Dropped from the cache in between (the file changed): make it again.
        if (!retry) throw err;
        return send(ctx, target, size, await ctx.services.previews.preview(target, size), false);
      }
      ctx.type = outcome.type;
      ctx.length = outcome.size;
      ctx.body = fh.createReadStream();
      return;
    }
    case 'raw':
      await sendUserFileInline(ctx, target);
  }
}

/** Aborts when the client disconnects before the response is complete. */
export function clientGone(ctx: FmContext): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) controller.abort(new Error('the client went away'));
  });
  return controller.signal;
}

export function previewRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get('/api/preview/:size', authenticate, validate(previewInput), getPreview);
  router.get('/api/preview/:size/{*path}', authenticate, validate(previewInput), getPreview);
  return router;
}
