/** Zod pieces for request input (query strings, ids) that several routes share. */
import { z } from 'zod';

/** `?name=true|1` as a boolean; anything else, or absent, is false. */
export const queryFlag = z
  .string()
  .optional()
  .transform((s) => s === 'true' || s === '1');

/** An optional whole number ≥ 0 from a query string; empty is absent. */
export const queryCount = z
  .string()
  .optional()
  .refine((s) => s === undefined || s === '' || /^\d{1,15}$/.test(s), 'must be a non-negative integer')
  .transform((s) => (s === undefined || s === '' ? undefined : Number(s)));

/** A positive database id in a URL; anything else cannot name a record (404, not 400). */
export const recordId = (what: string) =>
  z.string().transform((raw, ctx) => {
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN;
    if (Number.isSafeInteger(id) && id > 0) return id;
    ctx.addIssue({ code: 'custom', message: `${what} not found`, params: { status: 404 } });
    return z.NEVER;
  });

/** An object body, where a missing or null body counts as `{}`. */
export const objectBody = <S extends z.ZodType>(schema: S) => z.preprocess((b) => b ?? {}, schema);
