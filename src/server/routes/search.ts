/**
 * GET /api/search/{dir}?query=: matches under a folder, streamed as NDJSON lines
 * `{"dir":bool,"path":"rel/to/dir","size":n,"modified":"iso","type":"image"}` as they are found
 * (query syntax: services/search/query.ts; `type` for files only).
 * The search stops when the client disconnects.
 */
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import { SearchQuerySchema } from '../../schemas/files.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { authenticate } from '../middleware/auth.ts';
import type { Access, Target } from '../../services/files/gate.ts';
import { parseQuery } from '../../services/search/query.ts';
import { isoTime } from '../../services/files/listing.ts';
import { listingType } from '../../services/files/types.ts';
import { ndjsonStream } from '../../services/search/ndjson.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';
import { searchResultJson } from '../present.ts';

const PREFIX = '/api/search';
const searchInput = { query: SearchQuerySchema };

async function search(ctx: FmContext): Promise<void> {
  const query = parseQuery(inputOf(ctx, searchInput).query.query);
  const access = await userAccess(ctx);
  const target = await ctx.services.gate.resolve(access, pathAfter(ctx, PREFIX).path, 'read');
  if (!target.isDir) throw new BadRequestError('search needs a folder');
  const controller = new AbortController();
  ctx.res.once('close', () => controller.abort(new Error('the client went away')));
  ctx.type = 'application/x-ndjson';
  ctx.set('X-Accel-Buffering', 'no'); // proxies must not hold the stream back
  ctx.body = ndjsonStream(results(ctx, access, target, query, controller.signal), controller, {
    render: (lines) => lines,
    onError: (err) => ctx.services.log.error(`search in ${target.virtual} failed: ${(err as Error).message}`),
  });
}

/** The service's matches, one batch's NDJSON lines per string (never empty, no last newline), each re-checked against the rules before it leaves. */
async function* results(ctx: FmContext, access: Access, target: Target, query: ReturnType<typeof parseQuery>, signal: AbortSignal): AsyncGenerator<string> {
  const { gate, search: service } = ctx.services;
  const base = target.virtual === '/' ? '/' : `${target.virtual}/`;
  for await (const batch of service.search(access, target, query, signal)) {
    const lines: string[] = [];
    for (const r of batch) {
      if (!r.virtual.startsWith(base) || !gate.visible(access, r.virtual)) continue;
      const path = r.virtual.slice(base.length);
      const type = r.dir ? undefined : listingType(path.slice(path.lastIndexOf('/') + 1), r.size);
      lines.push(searchResultJson(r.dir, path, r.size, isoTime(r.mtimeMs), type));
    }
    if (lines.length) yield lines.join('\n');
  }
}

export function searchRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, validate(searchInput), search);
  router.get(`${PREFIX}/{*path}`, authenticate, validate(searchInput), search);
  return router;
}
