/** The share contract (filebrowser's shapes), shared by the server, the CLI and the web UI. */
import { BadRequestError } from '../errors.ts';

/** Seconds per duration unit (spec §5 "Share duration"). */
export const SHARE_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
export type ShareUnit = keyof typeof SHARE_UNITS;
export const MAX_SHARE_DURATION = 2147483647;

/** A link as the API shows it: never the password hash or the token. */
export interface ShareDto {
  hash: string;
  path: string;
  userID: number;
  expire: number;
  hasPassword: boolean;
  /** Filled for admins, who see every user's links. */
  username?: string;
}

/** A validated POST /api/share body. */
export interface ShareRequest {
  password: string;
  /** Duration in `unit`s; 0 = permanent. */
  expires: number;
  unit: ShareUnit;
}

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

/**
 * Epoch seconds at which a link made at `now` (epoch seconds, fractional) expires; 0 = never.
 * Rounded up, so a link lives at least the duration asked for (never less than a second).
 */
export function expireAt(req: Pick<ShareRequest, 'expires' | 'unit'>, now = Date.now() / 1000): number {
  return req.expires === 0 ? 0 : Math.ceil(now) + req.expires * SHARE_UNITS[req.unit];
}
