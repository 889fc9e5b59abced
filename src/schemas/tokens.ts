/** Server-side schema of POST /api/tokens (src/api/tokens.ts). */
import { z } from 'zod';
import { type AccessTokenRequest, MAX_TOKEN_LIFETIME } from '../api/tokens.ts';
import { parseDuration } from '../services/duration.ts';
import { sameType } from './same-type.ts';

/** `expires`: a duration (`30d`, `12h`, a number of seconds); 0, '' or absent for no expiry. */
const expires = z.union([z.number(), z.string()], { error: 'must be a duration such as 30d or 12h' }).transform((v, ctx) => {
  if (v === 0 || (typeof v === 'string' && (v.trim() === '' || v.trim() === '0'))) return 0;
  let seconds: number;
  try {
    seconds = typeof v === 'number' ? (Number.isInteger(v) && v > 0 ? v : Number.NaN) : parseDuration(v);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
  if (!Number.isFinite(seconds)) ctx.addIssue({ code: 'custom', message: 'must be a whole number of seconds or a duration such as 30d' });
  else if (seconds > MAX_TOKEN_LIFETIME) ctx.addIssue({ code: 'custom', message: 'must be at most 366 days' });
  return seconds;
});

export const AccessTokenBodySchema = z.object({
  name: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .refine((n) => !/[\u0000-\u001f\u007f]/.test(n), 'must not contain control characters'),
  expires: expires.optional().transform((v) => v ?? 0),
  readOnly: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .transform((v) => v ?? false),
  path: z
    .string({ error: 'must be a string' })
    .optional()
    .transform((p) => p ?? ''),
});

sameType<z.output<typeof AccessTokenBodySchema>, AccessTokenRequest>(true);
