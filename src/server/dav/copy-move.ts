/**
 * COPY and MOVE (RFC 4918 §9.8, §9.9) through the files API's patchResource: the same gate on
 * both paths, create permission for a copy, rename for a move, modify to replace, the same hooks
 * and events. An existing destination is replaced as a whole (Overwrite: T, the default): a
 * file by the copy or move itself, a folder (or an entry of the other kind) is deleted first,
 * which needs delete permission as well. A copy takes the dead properties along; a move carries
 * them by its file event (services/dav).
 */
import { BadRequestError, ForbiddenError, PreconditionFailedError } from '../../errors.ts';
import { deleteResource, patchResource, writeResource } from '../../services/files/operations.ts';
import { isWithin, parentOf } from '../../services/files/paths.ts';
import { destinationPath } from './hrefs.ts';
import { assertParentFolder } from './methods.ts';
import { assertUnlocked, checkIf, type DavRequest } from './request.ts';
import type { FmContext } from '../types.ts';
import { auditAs } from '../audit.ts';

export async function handleCopyMove(ctx: FmContext, req: DavRequest): Promise<void> {
  const move = ctx.method === 'MOVE';
  const overwrite = (ctx.get('Overwrite') || 'T').toUpperCase();
  if (overwrite !== 'T' && overwrite !== 'F') throw new BadRequestError('Overwrite must be T or F');
  const depth = (ctx.get('Depth') || 'infinity').toLowerCase();
  if (move ? depth !== 'infinity' : depth !== '0' && depth !== 'infinity') throw new BadRequestError(`Depth ${depth} is not allowed for ${ctx.method}`);
  const to = destinationPath(ctx.get('Destination'), ctx.host, req.base);
  const renamed = parentOf(to) === parentOf(req.virtual);
  auditAs(ctx, { action: move ? (renamed ? 'rename' : 'move') : 'copy', path: req.virtual, dest: to });
  const tokens = await checkIf(ctx, req);
  const { gate, repos } = ctx.services;
  const { access } = req;

  const src = await gate.resolve(access, req.virtual, move ? 'rename' : 'read', { allowRoot: false });
  if (to === src.virtual) throw new ForbiddenError('the source and the destination are the same');
  if (isWithin(src.virtual, to)) throw new ForbiddenError('the destination is inside the source');
  if (!move) gate.checkPermission(access, 'create');
  const dst = await gate.resolve(access, to, move ? 'rename' : 'create', { mustExist: false, allowRoot: false });
  await assertParentFolder(ctx, req, to);
  if (dst.exists && overwrite === 'F') throw new PreconditionFailedError('the destination exists (Overwrite: F)');
  if (move) assertUnlocked(ctx, tokens, { target: src, recursive: true, membership: true });
  assertUnlocked(ctx, tokens, { target: dst, recursive: true, membership: true });

  let replace = false;
  if (dst.exists) {
    gate.checkPermission(access, 'modify');
    if (dst.isDir || src.isDir) await deleteResource(ctx.services, access, to);
    else replace = true;
  }
  if (!move && src.isDir && depth === '0') {
    await writeResource(ctx.services, access, { virtual: to, folder: true, kind: 'create', override: false, body: ctx.req, maxSize: 0 });
    await repos.deadProps.set(dst.real, await repos.deadProps.get(src.abs));
  } else {
    await patchResource(ctx.services, access, { action: move ? 'rename' : 'copy', from: src.virtual, to, override: replace, rename: false });
    if (!move) await repos.deadProps.moveUnder(src.abs, dst.real, true);
  }
  ctx.status = dst.exists ? 204 : 201;
}
