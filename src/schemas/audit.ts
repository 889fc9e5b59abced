/** GET /api/audit's query: the filter, the page and the format. */
import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, parseAuditTime } from '../api/audit.ts';
import { cleanPath } from '../services/files/paths.ts';
import { queryCount } from './request.ts';

const auditTime = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === '') return undefined;
    const t = parseAuditTime(raw);
    if (t === undefined) ctx.addIssue({ code: 'custom', message: 'expected an ISO 8601 date or a duration such as 24h, 7d' });
    return t;
  });

const optionalText = z
  .string()
  .optional()
  .transform((s) => (s === '' ? undefined : s));

export const AuditQuerySchema = z.object({
  since: auditTime,
  until: auditTime,
  user: optionalText,
  action: z.enum(AUDIT_ACTIONS, { error: (i) => `unknown action "${String(i.input)}"` }).optional(),
  /** A path prefix: the entries on it or under it (cleaned like a request path). */
  path: optionalText.transform((p) => (p === undefined ? undefined : cleanPath(p).path)),
  limit: queryCount
    .refine((n) => n === undefined || (n >= 1 && n <= AUDIT_MAX_LIMIT), `must be from 1 to ${AUDIT_MAX_LIMIT}`)
    .transform((n) => n ?? AUDIT_DEFAULT_LIMIT),
  offset: queryCount.transform((n) => n ?? 0),
  format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).default('json'),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;
