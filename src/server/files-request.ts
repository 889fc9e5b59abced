/** Request helpers for routes that take a path after a fixed prefix (e.g. /api/resources). */
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
