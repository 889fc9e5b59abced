/** GET /api/analyze/{path}?depth=&limit=: the storage analyzer's data (docs/analyzer.md). */
import Router from '@koa/router';
import type { AnalyzeDto } from '../../api/analyze.ts';
import { BadRequestError } from '../../errors.ts';
import { AnalyzeQuerySchema } from '../../schemas/analyze.ts';
import { analyzeFolder } from '../../services/analyze.ts';
import { authenticate } from '../middleware/auth.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/analyze';
const input = { query: AnalyzeQuerySchema };

async function analyze(ctx: FmContext): Promise<void> {
  const { gate, searchIndex } = ctx.services;
  const access = await userAccess(ctx);
  const target = await gate.resolve(access, pathAfter(ctx, PREFIX).path, 'read');
  if (!target.isDir) throw new BadRequestError('the analyzer is for folders');
  const { query } = inputOf(ctx, input);
  const found = searchIndex.folderEntries(target.real);
  let body: AnalyzeDto;
  if (found) body = { state: 'ready', root: await analyzeFolder(gate, target, found.store, found.id, query) };
  else body = { state: searchIndex.started ? 'building' : 'off' };
  ctx.body = body;
}

export function analyzeRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, validate(input), analyze);
  router.get(`${PREFIX}/{*path}`, authenticate, validate(input), analyze);
  return router;
}
