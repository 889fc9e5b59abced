/**
 * The page and its assets: index.html with the startup settings (never cached), /static/*
 * from memory with precompressed variants and immutable caching for hashed names, /health.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import mime from 'mime-types';
import type { SharedSettings, StartupSettings } from '../../api/settings.ts';
import { FmError, NotFoundError } from '../../errors.ts';
import { requestSettings } from '../middleware/auth.ts';
import { BRANDING_LOGOS, type BrandingName, hasBrandingFile, isBrandingName, readBrandingFile } from '../branding.ts';
import type { FmContext, FmMiddleware } from '../types.ts';

interface Asset {
  body: Buffer;
  gzip?: Buffer;
  brotli?: Buffer;
  type: string;
  etag: string;
  immutable: boolean;
}

export interface WebBundle {
  /** The asset at this path under dist/web, read on its first request and kept in memory. */
  asset(rel: string): Asset | undefined;
  template: string;
}

/**
 * Lists dist/web once (the names only); each asset is read, with its precompressed variants and
 * its ETag, on its first request. Reading all of them was a twentieth of a start's CPU time, and
 * most are never asked for by a given run (every locale's chunk, the source of each icon).
 */
export function loadWebBundle(dir: string): WebBundle {
  if (!fs.existsSync(path.join(dir, 'index.html'))) throw new Error(`the web UI is not built (${dir}/index.html is missing): run npm run build`);
  // Walked by hand: Node 20's recursive readdirSync took ~10 times as long.
  const names = new Set<string>();
  const walk = (folder: string, prefix: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(folder, entry.name), `${prefix}${entry.name}/`);
      else if (!/\.(gz|br)$/.test(entry.name)) names.add(`${prefix}${entry.name}`);
    }
  };
  walk(dir, '');
  const loaded = new Map<string, Asset>();
  const read = (rel: string): Asset => {
    const full = path.join(dir, rel);
    const body = fs.readFileSync(full);
    const variant = (ext: string) => (fs.existsSync(full + ext) ? fs.readFileSync(full + ext) : undefined);
    return {
      body,
      gzip: variant('.gz'),
      brotli: variant('.br'),
      type: mime.contentType(path.extname(rel)) || 'application/octet-stream',
      etag: `"${crypto.createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`,
      immutable: /-[A-Z0-9]{8,}\.[a-z0-9]+$/i.test(rel),
    };
  };
  return {
    asset(rel) {
      if (!names.has(rel)) return undefined;
      let asset = loaded.get(rel);
      if (!asset) {
        try {
          asset = read(rel);
        } catch {
          return undefined; // removed since the start
        }
        loaded.set(rel, asset);
      }
      return asset;
    },
    template: fs.readFileSync(path.join(dir, 'index.html'), 'utf8'),
  };
}

export interface PageOptions {
  baseURL: string;
  version: string;
  /** The WebDAV prefix, when WebDAV is on. */
  webdavPrefix?: string;
}

/** What the branding folder provides that the page links to: custom.css, and the logo it has if any. */
export interface BrandingPresent {
  css: boolean;
  logo?: BrandingName;
}

export async function brandingPresent(folder: string): Promise<BrandingPresent> {
  const [css, ...logos] = await Promise.all([hasBrandingFile(folder, 'custom.css'), ...BRANDING_LOGOS.map((l) => hasBrandingFile(folder, l))]);
  return { css, logo: BRANDING_LOGOS.find((_, i) => logos[i]) };
}

export function startupSettings(s: SharedSettings, method: string, opts: PageOptions, branding: BrandingPresent = { css: false }): StartupSettings {
  const rc = method === 'json' ? s.auth.recaptcha : null;
  return {
    AuthMethod: method,
    BaseURL: opts.baseURL,
    CSS: branding.css,
    Color: s.branding.color,
    DisableExternal: s.branding.disableExternal,
    DisableUsedPercentage: s.branding.disableUsedPercentage,
    EnableExec: s.enableExec,
    EnableThumbs: s.enableThumbnails,
    HideLoginButton: s.hideLoginButton,
    Logo: `${opts.baseURL}/static/${branding.logo ?? 'img/logo.svg'}`,
    LoginPage: method === 'json' || method === 'hook',
    LogoutPage: s.logoutPage,
    Name: s.branding.name,
    NoAuth: method === 'noauth',
    ReCaptcha: Boolean(rc?.key && rc?.secret),
    ReCaptchaHost: rc?.host ?? '',
    ReCaptchaKey: rc?.key ?? '',
    ResizePreview: s.resizePreview,
    Signup: s.signup,
    StaticURL: `${opts.baseURL}/static`,
    Theme: s.branding.theme,
    TusSettings: { chunkSize: s.tus.chunkSize, retryCount: s.tus.retryCount },
    Version: opts.version,
    OidcName: s.auth.oidc && (method === 'json' || method === 'hook') ? s.auth.oidc.name || 'OpenID Connect' : '',
    WebDAVPath: opts.webdavPrefix ? `${opts.baseURL}${opts.webdavPrefix}/` : '',
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON safe inside a <script>: no `</script>`, no HTML comment openers, no line separators. */
const scriptJson = (v: unknown) =>
  JSON.stringify(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

export function renderIndex(bundle: WebBundle, startup: StartupSettings): { html: string; csp: string } {
  const script = `window.FM=${scriptJson(startup)};`;
  const hash = crypto.createHash('sha256').update(script).digest('base64');
  const html = bundle.template
    .replaceAll('{{STATIC}}', escapeHtml(startup.StaticURL))
    .replace('{{TITLE}}', escapeHtml(startup.Name || 'fm'))
    .replace('{{CUSTOM_CSS}}', startup.CSS ? `<link rel="stylesheet" href="${escapeHtml(startup.StaticURL)}/custom.css">` : '')
    .replace('{{SETTINGS_SCRIPT}}', script);
  const recaptcha = startup.ReCaptcha ? ` ${startup.ReCaptchaHost} https://www.gstatic.com` : '';
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'sha256-${hash}'${recaptcha}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "font-src 'self' data:",
    "connect-src 'self' ws: wss:",
    `frame-src 'self' blob:${recaptcha}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
  return { html, csp };
}

/** The settings each instance's pages were last served with (by its services). */
const lastPageSettings = new WeakMap<object, SharedSettings>();

/**
 * The settings for the page and its branding: while the database is unreachable, the last ones
 * seen, so a reload still gets the page (which then explains, call by call, that the database is
 * away) instead of a bare 503.
 */
async function pageSettings(ctx: FmContext): Promise<SharedSettings> {
  try {
    const settings = await requestSettings(ctx);
    lastPageSettings.set(ctx.services, settings);
    return settings;
  } catch (err) {
    const last = lastPageSettings.get(ctx.services);
    if (err instanceof FmError && err.code === 'database_unavailable' && last) return last;
    throw err;
  }
}

export function servePage(bundle: WebBundle, opts: PageOptions): FmMiddleware {
  return async (ctx) => {
    const settings = await pageSettings(ctx);
    const branding = await brandingPresent(settings.branding.files);
    const { html, csp } = renderIndex(bundle, startupSettings(settings, ctx.services.auth.method(settings), opts, branding));
    ctx.set('Content-Security-Policy', csp);
    ctx.set('Cache-Control', 'no-cache, no-store, must-revalidate');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
}

export function serveStatic(bundle: WebBundle): FmMiddleware {
  return async (ctx) => {
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path.replace(/^\/static\//, ''));
    } catch {
      throw new NotFoundError('no such asset');
    }
    if (isBrandingName(rel) && (await sendBranding(ctx, rel))) return;
    const asset = bundle.asset(rel);
    if (!asset || rel === 'index.html') throw new NotFoundError('no such asset');
    sendAsset(ctx, asset);
  };
}

/**
 * A file of the branding folder in place of the bundle's; false when there is none (or it is
 * refused, which is logged), so the bundle's default (the logo) or a 404 answers.
 */
async function sendBranding(ctx: FmContext, name: BrandingName): Promise<boolean> {
  const folder = (await pageSettings(ctx)).branding.files;
  const file = await readBrandingFile(folder, name);
  if (!file) return false;
  if ('refused' in file) {
    ctx.services.log.warn(`branding: not serving ${name} from ${folder}: ${file.refused}`);
    return false;
  }
  ctx.set('Cache-Control', 'no-cache');
  // An SVG opened as a document (its URL typed in) runs no script and loads nothing.
  if (name.endsWith('.svg')) ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  ctx.type = file.type;
  ctx.body = file.body;
  return true;
}

function sendAsset(ctx: FmContext, asset: Asset): void {
  ctx.set('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('ETag', asset.etag);
  ctx.set('Vary', 'Accept-Encoding');
  ctx.type = asset.type;
  const inm = ctx.get('If-None-Match');
  if (inm && (inm.trim() === '*' || inm.split(',').some((t) => t.trim().replace(/^W\//, '') === asset.etag))) {
    ctx.status = 304;
    return;
  }
  // The server's preference (brotli, then gzip), not the client's order: browsers list gzip first.
  if (asset.brotli && ctx.acceptsEncodings('br') === 'br') {
    ctx.set('Content-Encoding', 'br');
    ctx.body = asset.brotli;
  } else if (asset.gzip && ctx.acceptsEncodings('gzip') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = asset.gzip;
  } else {
    ctx.body = asset.body;
  }
}
