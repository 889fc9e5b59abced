/** Links of share links: the public page, public downloads, and their order (spec §4 "Create share"). */
import { encodePath, trimSlash } from './paths.ts';

/** QR code of the link (spec §9). */
export const QR_SIZE = 200;
export const QR_LEVEL = 'M';

const sub = (path = '/') => {
  const t = trimSlash(path);
  return t === '/' ? '' : encodePath(t);
};

/** The public page of a link, absolute (`https://host/base/share/AbC/sub%20dir`). */
export function shareUrl(origin: string, base: string, hash: string, subpath = '/'): string {
  return `${origin}${base}/share/${encodeURIComponent(hash)}${sub(subpath)}`;
}

export interface PublicDownloadOptions {
  inline?: boolean;
  /** Archive format (`zip`, `targz`, ...), for folders and selections. */
  algo?: string;
  /** Paths inside the share (a selection), each encoded per segment. */
  files?: string[];
  /** The share's token (links with a password). */
  token?: string;
}

/** `/base/api/public/dl/{hash}/{path}?...`; prefix with an origin for an absolute link. */
export function publicDownloadUrl(base: string, hash: string, path = '/', opts: PublicDownloadOptions = {}): string {
  const q = new URLSearchParams();
  if (opts.files?.length) q.set('files', opts.files.map((f) => encodePath(trimSlash(f))).join(','));
  if (opts.algo) q.set('algo', opts.algo);
  if (opts.inline) q.set('inline', 'true');
  if (opts.token) q.set('token', opts.token);
  const qs = q.toString();
  return `${base}/api/public/dl/${encodeURIComponent(hash)}${sub(path)}${qs ? `?${qs}` : ''}`;
}

/**
 * `/base/api/public/preview/{thumb|big}/{hash}/{path}?key=…`: an image of the link at thumbnail
 * or screen size. `key` (the file's modification time) lets the browser keep it for long.
 */
export function publicPreviewUrl(base: string, hash: string, path: string, size: 'thumb' | 'big', opts: { token?: string; modified?: string } = {}): string {
  const q = new URLSearchParams();
  if (opts.modified) q.set('key', String(Date.parse(opts.modified) || opts.modified));
  if (opts.token) q.set('token', opts.token);
  const qs = q.toString();
  return `${base}/api/public/preview/${size}/${encodeURIComponent(hash)}${sub(path)}${qs ? `?${qs}` : ''}`;
}

/** The share page's path for a share URL (`/share/{hash}/{subpath}`): hash and decoded subpath. */
export function parseSharePath(rawPathname: string): { hash: string; subpath: string } | undefined {
  const m = /^\/share\/([^/]+)(\/.*)?$/.exec(rawPathname);
  if (!m) return undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const subpath = trimSlash((m[2] ?? '/').split('/').map(decode).join('/'));
  return { hash: decode(m[1]), subpath };
}

export interface Expiring {
  expire: number;
  hash: string;
}

/** Permanent links first, then by expiry (soonest first); ties by hash so the order is stable. */
export function sortShares<T extends Expiring>(links: readonly T[]): T[] {
  return [...links].sort((a, b) => {
    if ((a.expire === 0) !== (b.expire === 0)) return a.expire === 0 ? -1 : 1;
    return a.expire - b.expire || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0);
  });
}

/** The app link of a path inside a share (folders end with a slash): `/share/AbC/sub%20dir/`. */
export function shareLinkHref(hash: string, path: string, isDir: boolean): string {
  const t = trimSlash(path);
  return `/share/${encodeURIComponent(hash)}${t === '/' ? '' : t.split('/').map(encodeURIComponent).join('/')}${isDir && t !== '/' ? '/' : ''}`;
}
