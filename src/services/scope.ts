/** User scopes: folders under the server root that a user sees as `/`. */
import path from 'node:path';
import { BadRequestError } from '../errors.ts';

/**
 * Normalises a scope to a virtual absolute path under the root ("/" for the root itself).
 * Scopes may be written as ".", "", "/a/b" or "a/b"; they can never climb above the root.
 */
export function cleanScope(raw: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000]/.test(raw)) throw new BadRequestError('scope contains a NUL byte');
  const slashed = raw.replace(/\\/g, '/');
  const segments: string[] = [];
  for (const seg of slashed.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') throw new BadRequestError('scope must not contain ".."');
    segments.push(seg);
  }
  return `/${segments.join('/')}`;
}

/** The absolute folder of a scope under a root. */
export function scopeDir(root: string, scope: string): string {
  return path.join(root, cleanScope(scope));
}

/** filebrowser's home-folder name for a username: `..` removed, unsafe characters turned into `-`. */
export function homeDirName(username: string): string {
  return (
    username
      .replace(/\.\./g, '')
      .replace(/[^0-9A-Za-z@_.-]/g, '-')
      .replace(/-+/g, '-')
      .replace(/^[.-]+/, '') || 'user'
  );
}

export function homeScope(userHomeBasePath: string, username: string): string {
  return cleanScope(`${cleanScope(userHomeBasePath)}/${homeDirName(username)}`);
}
