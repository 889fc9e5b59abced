/** Path helpers shared by the listing, the breadcrumbs and the API modules. Paths are virtual (`/a/b`). */

/** Encodes each segment, keeping the slashes: `/a b/c#d` → `/a%20b/c%23d`. */
export function encodePath(path: string): string {
  return path
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Decodes a raw (percent-encoded) URL path segment by segment, so `%2F` inside a name stays in that name's segment. */
export function decodePathname(raw: string): string {
  return raw.split('/').map(safeDecode).join('/');
}

/** Joins a folder path and a name: `joinPath('/a/', 'b')` → `/a/b`. */
export function joinPath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

/** Removes trailing slashes except for the root. */
export function trimSlash(path: string): string {
  const t = path.replace(/\/+$/, '');
  return t === '' ? '/' : t;
}

/** The parent folder of a path; the root is its own parent. */
export function parentPath(path: string): string {
  const t = trimSlash(path);
  const i = t.lastIndexOf('/');
  return i <= 0 ? '/' : t.slice(0, i);
}

/** The last segment of a path ('' for the root). */
export function baseName(path: string): string {
  const t = trimSlash(path);
  return t === '/' ? '' : t.slice(t.lastIndexOf('/') + 1);
}

/** True when both paths name the same folder, ignoring trailing slashes. */
export function samePath(a: string, b: string): boolean {
  return trimSlash(a) === trimSlash(b);
}

/** True when `child` is `parent` or lies below it. */
export function isWithin(child: string, parent: string): boolean {
  const c = trimSlash(child);
  const p = trimSlash(parent);
  return c === p || p === '/' || c.startsWith(`${p}/`);
}

/** The app URL of a file or folder (folders end with a slash): `/files/a%20b/`. */
export function filesUrl(path: string, isDir: boolean): string {
  const t = trimSlash(path);
  const enc = t === '/' ? '/' : encodePath(t);
  return `/files${enc}${isDir && enc !== '/' ? '/' : ''}`;
}

/**
 * The virtual path named by a raw app pathname (still percent-encoded, base URL removed):
 * `/files/a%20b/` → `/a b`. Returns undefined outside /files.
 */
export function pathFromFilesUrl(rawPathname: string): string | undefined {
  const m = /^\/files(\/.*)?$/i.exec(rawPathname);
  if (!m) return undefined;
  return trimSlash(decodePathname(m[1] ?? '/'));
}

export interface Crumb {
  name: string;
  url: string;
}

/** Breadcrumbs for a folder path under /files: one crumb per segment, each linking to its folder. */
export function breadcrumbs(path: string, folderUrl = (p: string) => filesUrl(p, true)): Crumb[] {
  const parts = trimSlash(path).split('/').filter(Boolean);
  return parts.map((name, i) => ({ name, url: folderUrl(`/${parts.slice(0, i + 1).join('/')}`) }));
}

/** The storage analyzer's URL of a folder (`/analyze/{path}/`). */
export function analyzeUrl(path: string): string {
  return filesUrl(path, true).replace(/^\/files/, '/analyze');
}

/** The folder path of an analyzer URL (`/analyze/...`), decoded. */
export function pathFromAnalyzeUrl(rawPathname: string): string | undefined {
  const m = /^\/analyze(\/.*)?$/i.exec(rawPathname);
  return m ? trimSlash(decodePathname(m[1] ?? '/')) : undefined;
}

export interface VisibleCrumbs {
  /** The crumb the ellipsis stands for (the deepest hidden one), when some are hidden. */
  hidden?: Crumb;
  shown: Crumb[];
}

/** When there are more than `max` crumbs, only the last `max` are shown behind an ellipsis. */
export function visibleCrumbs(crumbs: Crumb[], max = 3): VisibleCrumbs {
  if (crumbs.length <= max) return { shown: crumbs };
  return { hidden: crumbs[crumbs.length - max - 1], shown: crumbs.slice(-max) };
}

/** A name a user may give a new file or folder: trimmed, not empty, no slash, not `.` or `..`. */
export function validName(raw: string): string | undefined {
  const name = raw.trim();
  if (!name || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) return undefined;
  return name;
}
