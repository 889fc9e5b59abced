/**
 * Public share access, no login: GET /api/public/share/{hash}/{subpath} (info or listing),
 * GET /api/public/dl/{hash}/{subpath} (downloads) and GET /api/public/preview/{thumb|big}/{hash}/{subpath}
 * (image previews, as /api/preview answers them for the owner). Every request opens the link through the
 * share service, which re-checks the owner, their permissions, scope and rules via the gate.
 */
import Router from '@koa/router';
import { NotFoundError } from '../../errors.ts';
import { parseRequestPath, baseName } from '../../services/files/paths.ts';
import { fileInfo, listFolder } from '../../services/files/info.ts';
import { serveDownload } from '../download.ts';
import { PreviewSizeParams, servePreview } from './preview.ts';
import type { OpenShare, ShareUse } from '../../services/shares.ts';
import { ForbiddenError } from '../../errors.ts';
import { DownloadQuerySchema, PreviewQuerySchema, PublicQuerySchema } from '../../schemas/files.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { auditAs } from '../audit.ts';

const INFO_PREFIX = '/api/public/share';
const DL_PREFIX = '/api/public/dl';
const infoInput = { query: PublicQuerySchema };
const dlInput = { query: PublicQuerySchema.extend(DownloadQuerySchema.shape) };
const PREVIEW_PREFIX = '/api/public/preview';
const previewInput = { params: PreviewSizeParams, query: PublicQuerySchema.extend(PreviewQuerySchema.shape) };

/** Splits `/{hash}/{subpath}` after a prefix: the hash exactly, the subpath decoded once and cleaned. */
function hashAndSubpath(ctx: FmContext, prefix: string): { hash: string; subpath: string } {
  const rest = ctx.path.startsWith(`${prefix}/`) ? ctx.path.slice(prefix.length + 1) : '';
  const slash = rest.indexOf('/');
  const hash = slash < 0 ? rest : rest.slice(0, slash);
  if (!hash) throw new NotFoundError('share not found');
  const subpath = parseRequestPath(slash < 0 ? '/' : rest.slice(slash) || '/').path;
  return { hash, subpath };
}

/** Opens the link named by the URL with the request's credentials. */
export async function openShare(ctx: FmContext, prefix: string, as: ShareUse = 'view'): Promise<OpenShare> {
  const { hash, subpath } = hashAndSubpath(ctx, prefix);
  // Every public hit, refused ones included: the link, the address, what was read.
  auditAs(ctx, { action: 'share-hit', share: hash, path: subpath });
  const header = ctx.get('X-SHARE-PASSWORD');
  const creds = { password: header === '' ? undefined : header, token: inputOf(ctx, infoInput).query.token || undefined, ip: ctx.ip };
  return ctx.services.shares.open(hash, subpath, creds, as);
}

/** A link's folder listing or file; for an upload-only link, its name and limits only. */
async function shareInfo(ctx: FmContext): Promise<void> {
  auditAs(ctx, { action: 'share-hit', detail: 'info' });
  const open = await openShare(ctx, INFO_PREFIX, 'info');
  const { gate } = ctx.services;
  const { share, target, shareTarget } = open;
  const token = share.password_hash ? { token: share.token } : {};
  if (share.drop) {
    if (hashAndSubpath(ctx, INFO_PREFIX).subpath !== '/')
      throw new ForbiddenError('this link is upload-only: it can be uploaded to, not listed', 'upload_only');
    ctx.body = { ...(await ctx.services.drops.info(open)), ...token };
    return;
  }
  if (target.isDir) {
    const listing = await listFolder(gate, target, { sorting: { by: 'name', asc: true } });
    // The share's own folder is named after itself, not after the owner's path to it.
    if (target.virtual === '/') listing.name = baseName(shareTarget.virtual);
    ctx.body = { ...listing, ...token };
    return;
  }
  const info = await fileInfo(gate, target, { withContent: true, canModify: false });
  if (target === shareTarget) {
    // A file share: no owner paths (the file's own or its subtitles' siblings) leave the server.
    info.path = '';
    delete info.subtitles;
  }
  ctx.body = { ...info, ...token };
}

/**
 * Downloads like /api/raw, inside the link: a file share serves its file whatever the subpath
 * (and ignores `files`); a folder share serves the file the subpath names, or an archive of a
 * folder or of a `?files=` selection, resolved under the share root by the same download code.
 */
async function shareDownload(ctx: FmContext): Promise<void> {
  auditAs(ctx, { action: 'share-hit', detail: 'download' });
  const { access, shareTarget, target } = await openShare(ctx, DL_PREFIX);
  const folderShare = shareTarget !== target || shareTarget.isDir;
  const { inline, files, algo } = inputOf(ctx, dlInput).query;
  await serveDownload(ctx, {
    access,
    virtual: target.virtual,
    inline,
    files: folderShare ? files : undefined,
    algo,
    rootName: folderShare ? baseName(shareTarget.virtual) || 'share' : undefined,
  });
}

/** A thumbnail or a screen-sized image of a file in the link, for the share page's gallery. */
async function sharePreview(ctx: FmContext): Promise<void> {
  const { params, query } = inputOf(ctx, previewInput);
  auditAs(ctx, { action: 'share-hit', detail: `preview ${params.size}` });
  const { target } = await openShare(ctx, `${PREVIEW_PREFIX}/${params.size}`);
  await servePreview(ctx, target, params.size, query.key);
}

export function publicRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(`${INFO_PREFIX}/{*path}`, validate(infoInput), shareInfo);
  router.get(`${DL_PREFIX}/{*path}`, validate(dlInput), shareDownload);
  router.get(`${PREVIEW_PREFIX}/:size/{*path}`, validate(previewInput), sharePreview);
  return router;
}
