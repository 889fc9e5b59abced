/**
 * The share contract (filebrowser's shapes), shared by the server, the CLI and the web UI: types,
 * the duration units and the expiry rule (no zod, no node builtins). The request schema is in
 * src/schemas/shares.ts.
 */

/** Seconds per duration unit (spec §5 "Share duration"), in the order the share dialog offers them. */
export const SHARE_UNITS = { seconds: 1, minutes: 60, hours: 3600, days: 86400 } as const;
export type ShareUnit = keyof typeof SHARE_UNITS;
export const SHARE_UNIT_NAMES = Object.keys(SHARE_UNITS) as ShareUnit[];
export const DEFAULT_SHARE_UNIT: ShareUnit = 'hours';
/** A duration is 0 (permanent) or MIN_SHARE_DURATION..MAX_SHARE_DURATION units. */
export const MIN_SHARE_DURATION = 1;
export const MAX_SHARE_DURATION = 2147483647;
/**
 * The longest life a link may be given: 100 years (of 365.25 days), in seconds. Dates past
 * year 275760 cannot be shown by a browser at all; 100 years is "for good" to anyone who asks
 * for more, and permanent links (0) remain for that.
 */
export const MAX_SHARE_LIFETIME = 100 * 365.25 * 86400;
export const MAX_SHARE_LIFETIME_TEXT = '100 years';

/** A link as the API shows it: never the password hash or the token. */
export interface ShareDto {
  hash: string;
  path: string;
  userID: number;
  expire: number;
  hasPassword: boolean;
  /** Filled for admins, who see every user's links. */
  username?: string;
  /** An upload-only (drop) link: visitors can upload into the folder, never list or download. */
  uploadOnly?: boolean;
  /** A drop link's limits (absent: unlimited). */
  limits?: DropLimits;
  /** What arrived through a drop link. */
  received?: DropReceived;
}

/** Optional limits of a drop link, each a positive whole number. */
export interface DropLimits {
  /** Total bytes the link accepts. */
  maxBytes?: number;
  /** Files the link accepts. */
  maxFiles?: number;
  /** Bytes of the largest file. */
  maxFileSize?: number;
}

/** What a drop link received so far. */
export interface DropReceived {
  files: number;
  bytes: number;
  /** Epoch seconds of the last finished upload; 0 before the first. */
  last: number;
}

/** GET /api/public/share/{hash} of a drop link: its name and limits, never its items. */
export interface DropInfo {
  uploadOnly: true;
  /** The shared folder's name. */
  name: string;
  limits: DropLimits;
  /** The limits' room left, so the page can refuse a file before sending it. */
  left: DropLimits;
  /** Present when the link has a password (for follow-up requests). */
  token?: string;
}

/** A validated POST /api/share body. */
export interface ShareRequest {
  password: string;
  /** Duration in `unit`s; 0 = permanent. */
  expires: number;
  unit: ShareUnit;
  /** Make an upload-only (drop) link (folders only). */
  uploadOnly?: boolean;
  limits?: DropLimits;
}

/** The drop limits' names, in the order the share dialog shows them. */
export const DROP_LIMIT_NAMES = ['maxFiles', 'maxFileSize', 'maxBytes'] as const satisfies readonly (keyof DropLimits)[];

/** The limits set in `from` (a record or a request body), without the absent ones. */
export function pickLimits(from: { [K in keyof DropLimits]?: number | null }): DropLimits {
  const limits: DropLimits = {};
  for (const name of DROP_LIMIT_NAMES) {
    const v = from[name];
    if (typeof v === 'number') limits[name] = v;
  }
  return limits;
}

/**
 * A duration as typed (a whole number, surrounding blanks allowed): `0` for a permanent link
 * (empty or zero), the number for 1–2147483647, undefined for anything else (negative,
 * fractional, too large, text). The server accepts exactly these strings.
 */
export function parseShareDuration(input: string): number | undefined {
  const t = input.trim();
  if (t === '') return 0;
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  if (n === 0) return 0;
  return n >= MIN_SHARE_DURATION && n <= MAX_SHARE_DURATION ? n : undefined;
}

/** Whether a duration in `unit`s stays within MAX_SHARE_LIFETIME (0, permanent, always does). */
export function withinShareLifetime(expires: number, unit: ShareUnit): boolean {
  return expires * SHARE_UNITS[unit] <= MAX_SHARE_LIFETIME;
}

/**
 * Epoch seconds at which a link made at `now` (epoch seconds, fractional) expires; 0 = never.
 * Rounded up, so a link lives at least the duration asked for (never less than a second).
 */
export function expireAt(req: Pick<ShareRequest, 'expires' | 'unit'>, now = Date.now() / 1000): number {
  return req.expires === 0 ? 0 : Math.ceil(now) + req.expires * SHARE_UNITS[req.unit];
}
