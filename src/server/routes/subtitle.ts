/**
 * GET /api/subtitle/{path}: a subtitle file as WebVTT for the video player (.vtt as it is;
 * .srt, .ass and .ssa converted). Needs the download permission.
 */
import Router from '@koa/router';
import { BadRequestError, PayloadTooLargeError } from '../../errors.ts';
import { authenticate } from '../middleware/auth.ts';
import { openForRead } from '../../services/files/io.ts';
import { SUBTITLE_MAX_BYTES, decodeSubtitleText, subtitleFormat, toWebVtt } from '../../services/subtitles.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/subtitle';

async function getSubtitle(ctx: FmContext): Promise<void> {
  const { path: virtual } = pathAfter(ctx, PREFIX);
  const format = subtitleFormat(virtual);
  if (!format) throw new BadRequestError('subtitles are .vtt, .srt, .ass or .ssa files');
  auditAs(ctx, { action: 'preview', path: virtual, detail: 'subtitle' });
  const access = await userAccess(ctx);
  const target = await ctx.services.gate.resolve(access, virtual, 'download');
  if (!target.stat?.isFile()) throw new BadRequestError('not a file');
  if (target.stat.size > SUBTITLE_MAX_BYTES) throw new PayloadTooLargeError(`subtitle files over ${SUBTITLE_MAX_BYTES} bytes are not served`);
  const fh = await openForRead(target);
  let bytes: Buffer;
  try {
    bytes = await fh.readFile();
  } finally {
    await fh.close();
  }
  ctx.type = 'text/vtt; charset=utf-8';
  ctx.set('Cache-Control', 'private, no-cache');
  ctx.body = format === 'vtt' ? bytes : toWebVtt(decodeSubtitleText(bytes), format);
}

export function subtitleRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, getSubtitle);
  router.get(`${PREFIX}/{*path}`, authenticate, getSubtitle);
  return router;
}
