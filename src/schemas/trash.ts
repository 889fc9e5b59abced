/** Requests of /api/trash (docs/trash.md). */
import { z } from 'zod';
import { queryFlag } from './request.ts';

/** An item id as GET /api/trash gives it: one name in the trash folder (404 for anything else). */
export const TrashIdParamsSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(255)
    .refine((s) => s !== '.' && s !== '..' && !s.includes('/') && !s.includes('\0') && !s.startsWith('.'), { error: 'no such item' }),
});

/** POST /api/trash/{id}?action=restore[&rename=true|&override=true]. */
export const TrashActionQuerySchema = z.object({
  action: z.enum(['restore'], { error: 'must be restore' }),
  rename: queryFlag,
  override: queryFlag,
});
