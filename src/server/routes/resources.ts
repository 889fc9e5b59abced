/** /api/resources/{path}: listing and file info (GET); create, save, copy/move and delete. */
import crypto from 'node:crypto';
import Router from '@koa/router';
import { BadRequestError, ForbiddenError } from '../../errors.ts';
import { CHECKSUM_ALGOS, type ChecksumAlgo } from '../../api/files.ts';
import { authenticate } from '../middleware/auth.ts';
import { fileInfo, listFolder } from '../../services/files/info.ts';
import { openForRead } from '../../services/files/io.ts';
import { pathAfter, queryString, userAccess } from '../files-request.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/resources';

function nonNegativeInt(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw new BadRequestError(`${name} must be a non-negative integer`);
  return Number(raw);
}

async function getResource(ctx: FmContext): Promise<void> {
  const { gate } = ctx.services;
  const access = await userAccess(ctx);
  const { path: virtual } = pathAfter(ctx, PREFIX);
  const target = await gate.resolve(access, virtual, 'read');
  const user = ctx.state.user!;
  if (target.isDir) {
    ctx.body = await listFolder(gate, target, {
      sorting: user.sorting,
      offset: nonNegativeInt(queryString(ctx, 'offset'), 'offset'),
      limit: nonNegativeInt(queryString(ctx, 'limit'), 'limit'),
    });
    return;
  }
  const algo = queryString(ctx, 'checksum');
  if (algo !== undefined) {
    if (!(CHECKSUM_ALGOS as readonly string[]).includes(algo)) throw new BadRequestError(`unknown checksum algorithm "${algo}"`);
    const readable = await gate.resolve(access, virtual, 'download');
    const perm = ctx.state.user!.perm;
    const info = await fileInfo(gate, readable, { withContent: false, canModify: perm.admin || perm.modify });
    ctx.body = { ...info, checksums: { [algo]: await checksum(readable, algo as ChecksumAlgo) } };
    return;
  }
  if (ctx.get('X-Encoding') === 'true') {
    const readable = await gate.resolve(access, virtual, 'download');
    if (!readable.stat?.isFile()) throw new ForbiddenError('not a regular file');
    const fh = await openForRead(readable);
    ctx.type = 'application/octet-stream';
    ctx.body = fh.createReadStream();
    return;
  }
  const perm = user.perm;
  ctx.body = await fileInfo(gate, target, { withContent: perm.admin || perm.download, canModify: perm.admin || perm.modify });
}

/** Streams a file through a hash; memory stays flat whatever the size. */
async function checksum(target: Parameters<typeof openForRead>[0], algo: ChecksumAlgo): Promise<string> {
  if (!target.stat?.isFile()) throw new BadRequestError('checksums are for regular files');
  const fh = await openForRead(target);
  try {
    const hash = crypto.createHash(algo);
    for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 20, autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

export function resourcesRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(`${PREFIX}`, authenticate, getResource);
  router.get(`${PREFIX}/{*path}`, authenticate, getResource);
  return router;
}
