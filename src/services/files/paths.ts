/**
 * Pure path handling for request paths. A "virtual path" is absolute inside a user's scope:
 * "/" is the scope root, "/a/b.txt" a file in it. It never contains "." or ".." segments,
 * empty segments, backslashes or NUL. Names are in fm's byte form (disk/names.ts), spelled
 * one way: escapes that form valid UTF-8 are folded into the characters they encode, so a
 * rule sees every name under one spelling.
 */
import { BadRequestError, ForbiddenError } from '../../errors.ts';
import { canonicalName, hasEscapes, nameBytes } from './disk/names.ts';

export const MAX_PATH_BYTES = 4096;
export const MAX_NAME_BYTES = 255;

export interface ParsedPath {
  /** The cleaned virtual path. */
  path: string;
  /** The raw path ended with "/" (POST/PUT use it to mean "a folder"). */
  trailingSlash: boolean;
}

/**
 * Decodes a still-encoded URL path once and cleans it. Rejects NUL, invalid percent-encoding
 * or UTF-8 (400) and anything that climbs above the root (403).
 */
export function parseRequestPath(encoded: string): ParsedPath {
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    throw new BadRequestError('invalid percent-encoding or UTF-8 in path');
  }
  return cleanPath(decoded);
}

/** Bytes of a name or path on disk (an escape is one byte). */
function byteLength(s: string): number {
  return hasEscapes(s) ? nameBytes(s).length : Buffer.byteLength(s);
}

/** Cleans an already-decoded path (query parameters such as `destination`). */
export function cleanPath(decoded: string): ParsedPath {
  if (decoded.includes('\0')) throw new BadRequestError('NUL byte in path');
  if (byteLength(decoded) > MAX_PATH_BYTES) throw new BadRequestError('path too long');
  if (/[\ud800-\udfff]/.test(decoded.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    throw new BadRequestError('invalid UTF-16 in path');
  }
  const unified = decoded.replace(/\\/g, '/');
  const trailingSlash = unified.length > 1 && unified.endsWith('/');
  const out: string[] = [];
  for (const seg of unified.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) throw new ForbiddenError('path leaves the scope');
      out.pop();
      continue;
    }
    // Escapes stand for bytes 0x80-0xFF only, so folding never makes a "/", "." or NUL.
    const name = canonicalName(seg);
    if (byteLength(name) > MAX_NAME_BYTES) throw new BadRequestError('file name too long');
    out.push(name);
  }
  return { path: `/${out.join('/')}`, trailingSlash };
}

/** Validates a single new file or folder name (rename targets, uploads). */
export function checkName(name: string): string {
  if (!name || name === '.' || name === '..') throw new BadRequestError('invalid name');
  if (/[/\\\0]/.test(name)) throw new BadRequestError('a name cannot contain "/", "\\" or NUL');
  if (byteLength(name) > MAX_NAME_BYTES) throw new BadRequestError('file name too long');
  return name;
}

/** Joins a virtual directory and a relative path, cleaning the result. */
export function joinVirtual(dir: string, rel: string): string {
  return cleanPath(`${dir}/${rel}`).path;
}

export function parentOf(virtual: string): string {
  if (virtual === '/') return '/';
  const i = virtual.lastIndexOf('/');
  return i <= 0 ? '/' : virtual.slice(0, i);
}

export function baseName(virtual: string): string {
  return virtual === '/' ? '' : virtual.slice(virtual.lastIndexOf('/') + 1);
}

/** True when `child` is `parent` or lies below it (segment boundaries, not string prefixes). */
export function isWithin(parent: string, child: string): boolean {
  if (parent === '/') return child.startsWith('/');
  return child === parent || child.startsWith(`${parent}/`);
}

/** Percent-encodes every segment of a virtual path for use in a URL. */
export function encodePath(virtual: string): string {
  return virtual.split('/').map(encodeURIComponent).join('/');
}
