/** Request schemas of the files routes (/api/resources, /api/raw, /api/search, public downloads). */
import { z } from 'zod';
import { CHECKSUM_ALGOS } from '../api/files.ts';
import { parseRequestPath } from '../services/files/paths.ts';
import { queryCount, queryFlag } from './request.ts';

/** GET /api/resources/{path}: paging and folder sizes for folders, a checksum for files. */
export const ResourceQuerySchema = z.object({
  offset: queryCount,
  limit: queryCount,
  dirsizes: queryFlag,
  checksum: z.enum(CHECKSUM_ALGOS, { error: (i) => `unknown checksum algorithm "${String(i.input)}"` }).optional(),
});

/** POST/PUT /api/resources/{path}. */
export const WriteQuerySchema = z.object({ override: queryFlag });

/** PATCH /api/resources/{path}?action=copy|rename&destination=…: the destination is a path (decoded once more). */
export const PatchQuerySchema = z.object({
  action: z.enum(['copy', 'rename'], { error: 'must be copy or rename' }),
  destination: z
    .string({ error: 'is required' })
    .min(1, 'is required')
    .transform((d) => parseRequestPath(d).path),
  override: queryFlag,
  rename: queryFlag,
});

/** GET /api/raw and /api/public/dl: inline display, a `files` selection, the archive format. */
export const DownloadQuerySchema = z.object({
  inline: queryFlag,
  files: z.string().optional(),
  algo: z.string().optional(),
});

/** GET /api/public/share and /api/public/dl: the follow-up token of a password-protected link. */
export const PublicQuerySchema = z.object({ token: z.string().optional() });

/** GET /api/search/{dir}?query=. */
export const SearchQuerySchema = z.object({ query: z.string().default('') });

/** GET /api/preview: `key` (the modification stamp that makes an answer cacheable for long). */
export const PreviewQuerySchema = z.object({ key: z.string().optional() });
