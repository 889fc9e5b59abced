/** /api/resources/{path}: listing and file info (GET); create, save, copy/move and delete. */
import crypto from 'node:crypto';
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import type { ChecksumAlgo } from '../../api/files.ts';
import { PatchQuerySchema, ResourceQuerySchema, WriteQuerySchema } from '../../schemas/files.ts';
import { authenticate } from '../middleware/auth.ts';
import { inputOf, validate } from '../middleware/validate.ts';
import { fileInfo, listFolderJson, listFolderWithSizes } from '../../services/files/info.ts';
import { openForRead } from '../../services/files/io.ts';
import { deleteResource, etagOf, patchResource, writeResource } from '../../services/files/operations.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import { parentOf } from '../../services/files/paths.ts';
import type { FmContext, FmRouter } from '../types.ts';
import type { Stats } from '../../services/files/disk/types.ts';
import { auditAs } from '../audit.ts';

const PREFIX = '/api/resources';

const getInput = { query: ResourceQuerySchema };
const writeInput = { query: WriteQuerySchema };
const patchInput = { query: PatchQuerySchema };

async function getResource(ctx: FmContext): Promise<void> {
  const { gate } = ctx.services;
  const access = await userAccess(ctx);
  const { path: virtual } = pathAfter(ctx, PREFIX);
  const target = await gate.resolve(access, virtual, 'read');
  const user = ctx.state.user!;
  const { query } = inputOf(ctx, getInput);
  if (target.isDir) {
    const { searchIndex } = ctx.services;
    const listed = (real: string, st: Stats) => searchIndex.listedFolder(real, st);
    const opts = { sorting: user.sorting, offset: query.offset, limit: query.limit, listed };
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = query.dirsizes
      ? await listFolderWithSizes(gate, target, opts, searchIndex.childDirSizes(target.real))
      : await listFolderJson(gate, target, opts);
    return;
  }
  auditAs(ctx, { action: 'preview', path: target.virtual });
  const algo = query.checksum;
  if (algo !== undefined) {
    const readable = await gate.resolve(access, virtual, 'download');
    const perm = ctx.state.user!.perm;
    const info = await fileInfo(gate, readable, { withContent: false, canModify: perm.admin || perm.modify });
    // A checksum reads the bytes but gives none of them out: not a content read.
    ctx.state.audit = undefined;
    ctx.body = { ...info, checksums: { [algo]: await checksum(readable, algo) } };
    return;
  }
  if (ctx.get('X-Encoding') === 'true') {
    auditAs(ctx, { action: 'download' });
    const readable = await gate.resolve(access, virtual, 'download');
    if (!readable.stat?.isFile()) throw new BadRequestError('not a regular file');
    const fh = await openForRead(readable);
    ctx.type = 'application/octet-stream';
    ctx.body = fh.createReadStream();
    return;
  }
  const perm = user.perm;
  const info = await fileInfo(gate, target, { withContent: perm.admin || perm.download, canModify: perm.admin || perm.modify });
  // File info is a content read when it carries the text (the editor and the text preview).
  if (info.content === undefined) ctx.state.audit = undefined;
  else auditAs(ctx, { bytes: info.size });
  ctx.body = info;
}

/** Streams a file through a hash; memory stays flat whatever the size. */
async function checksum(target: Parameters<typeof openForRead>[0], algo: ChecksumAlgo): Promise<string> {
  if (!target.stat?.isFile()) throw new BadRequestError('checksums are for regular files');
  const fh = await openForRead(target);
  try {
    const hash = crypto.createHash(algo);
    for await (const chunk of fh.createReadStream({ highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

/** POST creates, PUT saves: the body streams to disk, never buffered. */
function writeHandler(kind: 'create' | 'save') {
  return async (ctx: FmContext): Promise<void> => {
    const access = await userAccess(ctx);
    const parsed = pathAfter(ctx, PREFIX);
    auditAs(ctx, { action: kind, path: parsed.path });
    const declared = ctx.get('Content-Length');
    try {
      const { stat } = await writeResource(ctx.services, access, {
        virtual: parsed.path,
        folder: parsed.trailingSlash,
        kind,
        override: inputOf(ctx, writeInput).query.override,
        body: ctx.req,
        length: /^\d+$/.test(declared) ? Number(declared) : undefined,
        maxSize: access.settings.maxUploadSize,
      });
      if (stat) {
        ctx.set('ETag', etagOf(stat));
        auditAs(ctx, { bytes: Number(stat.size) });
      }
      ctx.status = 200;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = '200 OK\n';
    } catch (err) {
      // The body was not (fully) read: close the connection after answering rather than
      // reading the rest of what could be a very large upload.
      if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
      throw err;
    }
  };
}

async function patchHandler(ctx: FmContext): Promise<void> {
  const access = await userAccess(ctx);
  const { action, destination, override, rename } = inputOf(ctx, patchInput).query;
  const from = pathAfter(ctx, PREFIX).path;
  const sameFolder = parentOf(from) === parentOf(destination);
  auditAs(ctx, { action: action === 'copy' ? 'copy' : sameFolder ? 'rename' : 'move', path: from, dest: destination });
  const dest = await patchResource(ctx.services, access, { action, from, to: destination, override, rename });
  auditAs(ctx, { dest });
  ctx.status = 200;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = '200 OK\n';
}

async function deleteHandler(ctx: FmContext): Promise<void> {
  const access = await userAccess(ctx);
  const virtual = pathAfter(ctx, PREFIX).path;
  auditAs(ctx, { action: 'delete', path: virtual });
  await deleteResource(ctx.services, access, virtual);
  ctx.status = 204;
}

export function resourcesRouter(): FmRouter {
  const router: FmRouter = new Router();
  for (const p of [PREFIX, `${PREFIX}/{*path}`]) {
    router.get(p, authenticate, validate(getInput), getResource);
    router.post(p, authenticate, validate(writeInput), writeHandler('create'));
    router.put(p, authenticate, validate(writeInput), writeHandler('save'));
    router.patch(p, authenticate, validate(patchInput), patchHandler);
    router.delete(p, authenticate, deleteHandler);
  }
  return router;
}
