/** Server-side parsing of the share contract (src/api/shares.ts). */
import { MAX_SHARE_DURATION, SHARE_UNITS, type ShareRequest, type ShareUnit } from '../api/shares.ts';
import { BadRequestError } from '../errors.ts';

type Query = Record<string, string | string[] | undefined>;

/**
 * Parses `{password, expires, unit}` (body) with `?expires=&unit=` as a fallback: a field
 * present in the body wins. `expires` is a number or a numeric string; empty or 0 means
 * permanent, otherwise 1..2147483647; unit defaults to hours; anything else is 400.
 */
export function parseShareRequest(body: unknown, query: Query = {}): ShareRequest {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new BadRequestError('the body must be a JSON object');
  }
  const b = (body ?? {}) as Record<string, unknown>;
  const pick = (name: string): unknown => {
    if (b[name] !== undefined && b[name] !== null) return b[name];
    const q = query[name];
    return Array.isArray(q) ? q[0] : q;
  };
  const password = b.password ?? '';
  if (typeof password !== 'string') throw new BadRequestError('password must be a string');
  if (new TextEncoder().encode(password).length > 72) throw new BadRequestError('password is longer than 72 bytes');
  return { password, expires: parseExpires(pick('expires')), unit: parseUnit(pick('unit')) };
}

function parseExpires(v: unknown): number {
  if (v === undefined || v === null || v === '') return 0;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*\d+\s*$/.test(v)) n = Number(v.trim());
  else throw new BadRequestError('expires must be a whole number');
  if (!Number.isInteger(n) || n < 0) throw new BadRequestError('expires must be a whole number');
  if (n > MAX_SHARE_DURATION) throw new BadRequestError(`expires must be at most ${MAX_SHARE_DURATION}`);
  return n;
}

function parseUnit(v: unknown): ShareUnit {
  if (v === undefined || v === null || v === '') return 'hours';
  if (typeof v !== 'string' || !Object.hasOwn(SHARE_UNITS, v.toLowerCase())) {
    throw new BadRequestError('unit must be seconds, minutes, hours or days');
  }
  return v.toLowerCase() as ShareUnit;
}
