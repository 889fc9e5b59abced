/**
 * The read-only WebDAV view of a public share, `/dav-share/<hash>/` (the WebDAV prefix plus
 * `-share`): OPTIONS, PROPFIND, GET and HEAD, nothing that writes or locks. Every request opens
 * the link through the share service, as the share page's API does (the owner's current
 * permissions, scope and rules, the link's password, its throttle), and sees exactly what that
 * page shows: a folder share's folder, or a file share's one file (as the only entry of the
 * share's root); no dead properties, no locks. A password share asks for the password with
 * Basic (any user name).
 */
import { FmError, NotFoundError, UnauthorizedError } from '../../errors.ts';
import { baseName } from '../../services/files/paths.ts';
import { serveDownload } from '../download.ts';
import { parseBasic } from './auth.ts';
import { davPath } from './hrefs.ts';
import { handleGet } from './methods.ts';
import { handlePropfind } from './props.ts';
import type { DavRequest } from './request.ts';
import type { FmContext, FmMiddleware } from '../types.ts';
import { auditAs } from '../audit.ts';

const SHARE_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PROPFIND'];

/** Opens the link the URL names, with the password of the Basic credentials if any. */
async function openShareRequest(ctx: FmContext, prefix: string, baseURL: string): Promise<DavRequest> {
  const rest = ctx.path.slice(prefix.length + 1);
  const slash = rest.indexOf('/');
  const hash = slash < 0 ? rest : rest.slice(0, slash);
  if (!hash) throw new NotFoundError('share not found');
  const subpath = davPath(slash < 0 ? '/' : rest.slice(slash)).path;
  auditAs(ctx, { action: 'share-hit', share: hash, path: subpath, detail: `webdav ${ctx.method}` });
  const password = parseBasic(ctx.get('Authorization'))?.password;
  let open: Awaited<ReturnType<typeof ctx.services.shares.open>>;
  try {
    // The service takes the password as the share page sends it (percent-encoded).
    open = await ctx.services.shares.open(hash, subpath, { password: password === undefined ? undefined : encodeURIComponent(password), ip: ctx.ip });
  } catch (err) {
    if (err instanceof UnauthorizedError) err.headers['WWW-Authenticate'] = 'Basic realm="fm share", charset="UTF-8"';
    throw err;
  }
  const base = `${baseURL}${prefix}/${hash}`;
  const fileShare = !open.shareTarget.isDir;
  return {
    base,
    virtual: fileShare ? subpath : open.target.virtual,
    trailingSlash: false,
    access: open.access,
    share: fileShare ? { file: open.shareTarget } : {},
  };
}

export function davShareMiddleware(opts: { prefix: string; baseURL: string }): FmMiddleware {
  const { prefix } = opts;
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${prefix}/`)) return next();
    ctx.set('DAV', '1');
    if (ctx.url.includes('#')) throw new FmError(400, 'bad_request', 'a request URL cannot have a fragment (#)');
    if (!SHARE_METHODS.includes(ctx.method)) {
      throw new FmError(405, 'method_not_allowed', 'a shared link is read-only', { Allow: SHARE_METHODS.join(', ') });
    }
    const req = await openShareRequest(ctx, prefix, opts.baseURL);
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', SHARE_METHODS.join(', '));
      ctx.status = 200;
      ctx.body = '';
    } else if (ctx.method === 'PROPFIND') {
      await handlePropfind(ctx, req);
    } else if (req.share?.file && req.virtual !== '/') {
      if (req.virtual !== `/${baseName(req.share.file.virtual)}`) throw new NotFoundError('not found');
      await serveDownload(ctx, { access: req.access, virtual: req.share.file.virtual, inline: true });
    } else if (req.share?.file) {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'This is a shared file of fm: open it with a WebDAV client.\n';
    } else {
      await handleGet(ctx, req);
    }
  };
}
