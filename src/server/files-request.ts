/** Request helpers for routes that take a path after a fixed prefix (e.g. /api/resources). */
import { BadRequestError, ForbiddenError } from '../errors.ts';
import { parseRequestPath, type ParsedPath } from '../services/files/paths.ts';
import type { Access } from '../services/files/gate.ts';
import { requestSettings } from './middleware/auth.ts';
import type { FmContext } from './types.ts';

/**
 * The cleaned virtual path that follows `prefix` in the raw (still percent-encoded) URL path.
 * Decoded exactly once, here.
 */
export function pathAfter(ctx: FmContext, prefix: string): ParsedPath {
  const raw = ctx.path.startsWith(prefix) ? ctx.path.slice(prefix.length) : '/';
  return parseRequestPath(raw || '/');
}

/**
 * The signed-in user's file access (scope, rules), built once per request. An access token
 * limited to a folder gets that folder as its root, through the gate like a share's folder.
 */
export async function userAccess(ctx: FmContext): Promise<Access> {
  const cached = (ctx.state as { access?: Access }).access;
  if (cached) return cached;
  const { gate } = ctx.services;
  let access = await gate.access(ctx.state.user!, await requestSettings(ctx));
  const limit = ctx.state.accessToken?.path;
  if (limit) {
    const folder = await gate.resolve(access, limit, 'read', { mustExist: true });
    if (!folder.isDir) throw new ForbiddenError("the access token's folder is not a folder any more");
    access = gate.subAccess(access, folder);
  }
  (ctx.state as { access?: Access }).access = access;
  return access;
}

/**
 * A raw query string as an object of first values, each decoded once, strictly: invalid
 * percent-encoding or UTF-8 in a value is a 400 naming the parameter (Koa's parser would turn it
 * into U+FFFD, which names another file). A malformed key simply matches nothing.
 */
export function strictQuery(querystring: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!querystring) return out;
  for (const part of querystring.split('&')) {
    const eq = part.indexOf('=');
    let key: string;
    try {
      key = decodeURIComponent((eq < 0 ? part : part.slice(0, eq)).replace(/\+/g, ' '));
    } catch {
      continue;
    }
    if (Object.hasOwn(out, key)) continue;
    try {
      out[key] = eq < 0 ? '' : decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      throw new BadRequestError(`invalid percent-encoding or UTF-8 in ${key}`);
    }
  }
  return out;
}
