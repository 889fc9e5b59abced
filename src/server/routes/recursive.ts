/**
 * GET /api/resources/recursive/{dir}: every visible entry under a folder as one flat JSON array
 * `[{"path","name","size","modified","isDir"}]` (the folder itself excluded), streamed. Rules
 * and hidden dotfiles apply; denied folders are not entered; links leading out of the scope or
 * into a folder the rules deny are left out (the gate's resolveLinkEntry). Names that are not
 * UTF-8 are listed escaped (services/files/disk/names.ts). Registered before the resources router, so for GET this prefix wins over a
 * top-level folder named "recursive" (as in filebrowser; see docs/decisions.md).
 */
import { Readable } from 'node:stream';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import { authenticate } from '../middleware/auth.ts';
import type { Gate, Target } from '../../services/files/gate.ts';
import { isPartialName } from '../../services/files/io.ts';
import { lstatOrUndefined } from '../../services/files/disk/lookup.ts';
import type { Stats } from '../../services/files/disk/types.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/resources/recursive';
const BATCH = 256;

/** One entry of the flat listing. */
export interface RecursiveEntryDto {
  path: string;
  name: string;
  size: number;
  modified: string;
  isDir: boolean;
}

async function listRecursive(ctx: FmContext): Promise<void> {
  const access = await userAccess(ctx);
  const target = await ctx.services.gate.resolve(access, pathAfter(ctx, PREFIX).path, 'read');
  if (!target.isDir) throw new BadRequestError('not a folder');
  ctx.type = 'application/json; charset=utf-8';
  // Pulled lazily: a slow client slows the walk, and a closed connection ends it.
  ctx.body = Readable.from(jsonArray(entries(ctx.services.gate, target)));
}

async function* entries(gate: Gate, target: Target): AsyncGenerator<RecursiveEntryDto> {
  let n = 0;
  for await (const e of gate.visibleTree(target)) {
    if (isPartialName(e.dirent.name)) continue;
    // Synchronous lstat in batches (much faster than the thread pool), yielding between them.
    if (++n % BATCH === 0) await yieldToLoop();
    let st: Stats | undefined = lstatOrUndefined(e.abs);
    if (!st) continue; // vanished meanwhile
    if (st.isSymbolicLink()) {
      const resolved = gate.resolveLinkEntry(target.access, e.abs);
      if (resolved === 'denied') continue; // never show where such a link points
      if (resolved !== 'dangling') st = resolved.stat;
    }
    const isDir = st.isDirectory();
    yield { path: e.virtual, name: e.dirent.name, size: isDir ? 4096 : st.size, modified: new Date(st.mtimeMs).toISOString(), isDir };
  }
}

/** `[a,b,…]` in chunks of BATCH items. */
async function* jsonArray(items: AsyncIterable<unknown>): AsyncGenerator<string> {
  let chunk = '[';
  let first = true;
  let n = 0;
  for await (const item of items) {
    chunk += (first ? '' : ',') + JSON.stringify(item);
    first = false;
    if (++n % BATCH === 0) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]`;
}

export function recursiveRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, listRecursive);
  router.get(`${PREFIX}/{*dir}`, authenticate, listRecursive);
  return router;
}
