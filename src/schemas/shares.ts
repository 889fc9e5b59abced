/** Server-side schemas of the share contract (src/api/shares.ts): POST /api/share/{path}. */
import { z } from 'zod';
import {
  DEFAULT_SHARE_UNIT,
  pickLimits,
  MAX_SHARE_DURATION,
  MAX_SHARE_LIFETIME,
  MAX_SHARE_LIFETIME_TEXT,
  SHARE_UNITS,
  type ShareRequest,
  type ShareUnit,
  withinShareLifetime,
} from '../api/shares.ts';
import { BadRequestError } from '../errors.ts';
import { describeIssue } from './issues.ts';

/** `expires`: a whole number or a numeric string; empty means permanent (0). */
const expires = z.union([z.number(), z.string()], { error: 'must be a whole number' }).transform((v, ctx) => {
  const n = typeof v === 'number' ? v : /^\s*\d+\s*$/.test(v) ? Number(v.trim()) : v.trim() === '' ? 0 : Number.NaN;
  if (!Number.isInteger(n) || n < 0) ctx.addIssue({ code: 'custom', message: 'must be a whole number' });
  else if (n > MAX_SHARE_DURATION) ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_SHARE_DURATION}` });
  return n;
});

/** `unit`: seconds, minutes, hours or days, any case; empty means the default. */
const unit = z.string({ error: 'must be seconds, minutes, hours or days' }).transform((v, ctx) => {
  const u = v.toLowerCase();
  if (u === '') return undefined;
  if (Object.hasOwn(SHARE_UNITS, u)) return u as ShareUnit;
  ctx.addIssue({ code: 'custom', message: 'must be seconds, minutes, hours or days' });
  return z.NEVER;
});

const nullish = <S extends z.ZodType>(s: S) => s.nullish().transform((v) => v ?? undefined);

/** A drop limit: a positive whole number (bytes or files); null or absent is no limit. */
const limit = nullish(
  z
    .number({ error: 'must be a positive whole number' })
    .int('must be a positive whole number')
    .positive('must be a positive whole number')
    .max(Number.MAX_SAFE_INTEGER, 'is too large'),
);

/** The JSON body: every field optional (a missing or null body is `{}`). */
export const ShareBodySchema = z.preprocess(
  (b) => b ?? {},
  z.object(
    {
      password: nullish(z.string({ error: 'must be a string' }).refine((p) => new TextEncoder().encode(p).length <= 72, 'is longer than 72 bytes')),
      expires: nullish(expires),
      unit: nullish(unit),
      uploadOnly: nullish(z.boolean({ error: 'must be true or false' })),
      maxBytes: limit,
      maxFiles: limit,
      maxFileSize: limit,
    },
    { error: 'the body must be a JSON object' },
  ),
);

/** `?expires=&unit=`: the fallback for fields the body leaves out. */
export const ShareQuerySchema = z.object({ expires: expires.optional(), unit: unit.optional() });

/**
 * A body field wins over the query parameter; unit defaults to hours, expires to permanent.
 * The lifetime cap needs both fields (which may come from different parts), so it is checked
 * here, after they are merged: 400 past MAX_SHARE_LIFETIME.
 */
export function shareRequest(body: z.output<typeof ShareBodySchema>, query: z.output<typeof ShareQuerySchema>): ShareRequest {
  const req: ShareRequest = {
    password: body.password ?? '',
    expires: body.expires ?? query.expires ?? 0,
    unit: body.unit ?? query.unit ?? DEFAULT_SHARE_UNIT,
  };
  const limits = pickLimits(body);
  if (body.uploadOnly) {
    req.uploadOnly = true;
    req.limits = limits;
  } else if (Object.keys(limits).length) {
    throw new BadRequestError('maxBytes, maxFiles and maxFileSize apply to upload-only links ("uploadOnly": true)');
  }
  if (!withinShareLifetime(req.expires, req.unit)) {
    const most = Math.floor(MAX_SHARE_LIFETIME / SHARE_UNITS[req.unit]);
    throw new BadRequestError(`expires: a link lives at most ${MAX_SHARE_LIFETIME_TEXT} (${most} ${req.unit})`);
  }
  return req;
}

/** Parses a body and a query as the route does (for callers outside a request); 400 on bad input. */
export function parseShareRequest(body: unknown, query: Record<string, string | undefined> = {}): ShareRequest {
  const b = ShareBodySchema.safeParse(body);
  if (!b.success) throw new BadRequestError(describeIssue('body', b.error).message);
  const q = ShareQuerySchema.safeParse(query);
  if (!q.success) throw new BadRequestError(describeIssue('query', q.error).message);
  return shareRequest(b.data, q.data);
}
