/** Server-side schemas of the share contract (src/api/shares.ts): POST /api/share/{path}. */
import { z } from 'zod';
import {
  DEFAULT_SHARE_UNIT,
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

/** The JSON body: every field optional (a missing or null body is `{}`). */
export const ShareBodySchema = z.preprocess(
  (b) => b ?? {},
  z.object(
    {
      password: nullish(z.string({ error: 'must be a string' }).refine((p) => new TextEncoder().encode(p).length <= 72, 'is longer than 72 bytes')),
      expires: nullish(expires),
      unit: nullish(unit),
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
