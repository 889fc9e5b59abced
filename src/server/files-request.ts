/** Request helpers for routes that take a path after a fixed prefix (e.g. /api/resources). */
import { BadRequestError } from '../errors.ts';
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

/** The signed-in user's file access (scope, rules), built once per request. */
export async function userAccess(ctx: FmContext): Promise<Access> {
  const cached = (ctx.state as { access?: Access }).access;
  if (cached) return cached;
  const access = await ctx.services.gate.access(ctx.state.user!, await requestSettings(ctx));
  (ctx.state as { access?: Access }).access = access;
  return access;
}

/** `?name=true|1` as a boolean. */
export function queryFlag(ctx: FmContext, name: string): boolean {
  const v = ctx.query[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s === 'true' || s === '1';
}

/** A single string query parameter. */
export function queryString(ctx: FmContext, name: string): string | undefined {
  const v = ctx.query[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A query parameter that carries a path (`destination`), decoded strictly. Clients encode the
 * path per segment and the query string encodes it again (filebrowser's wire format). Koa's
 * query parser would turn invalid UTF-8 into U+FFFD, which names another file, so the outer
 * layer is decoded here from the raw query string: invalid UTF-8 in either layer is a 400, as
 * in the URL path. Undefined when the parameter is absent.
 */
export function queryPath(ctx: FmContext, name: string): ParsedPath | undefined {
  const once = queryStrict(ctx, name);
  return once === undefined || once === '' ? undefined : parseRequestPath(once);
}

/**
 * A query parameter decoded once, strictly: invalid percent-encoding or UTF-8 is a 400 (Koa's
 * parser would turn it into U+FFFD). For parameters that carry encoded paths (`files`).
 */
export function queryStrict(ctx: FmContext, name: string): string | undefined {
  const raw = rawQueryValue(ctx.querystring, name);
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    throw new BadRequestError(`invalid percent-encoding or UTF-8 in ${name}`);
  }
}

/** The first value of `name` in a raw query string, still encoded. */
function rawQueryValue(querystring: string, name: string): string | undefined {
  for (const part of querystring.split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    let decodedKey = key;
    try {
      decodedKey = decodeURIComponent(key.replace(/\+/g, ' '));
    } catch {
      // a malformed key is not the one we look for
    }
    if (decodedKey === name) return eq < 0 ? '' : part.slice(eq + 1);
  }
  return undefined;
}
