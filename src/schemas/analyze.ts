/** GET /api/analyze/{path}: how deep and how many entries per folder. */
import { z } from 'zod';
import { ANALYZE_MAX_DEPTH, ANALYZE_MAX_LIMIT } from '../api/analyze.ts';
import { queryCount } from './request.ts';

const bounded = (min: number, max: number, fallback: number) =>
  queryCount.refine((n) => n === undefined || (n >= min && n <= max), `must be between ${min} and ${max}`).transform((n) => n ?? fallback);

export const AnalyzeQuerySchema = z.object({
  depth: bounded(1, ANALYZE_MAX_DEPTH, 2),
  limit: bounded(1, ANALYZE_MAX_LIMIT, 40),
});
