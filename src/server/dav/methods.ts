/**
 * The plain WebDAV methods: OPTIONS, GET/HEAD (the /api/raw download), PUT, DELETE and MKCOL,
 * each through the same service as the files API, after the If header and the locks.
 */
import path from 'node:path';
import {
  BadRequestError,
  ConflictError,
  InsufficientStorageError,
  MethodNotAllowedError,
  NotFoundError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../../errors.ts';
import { deleteResource, etagOf, setModified, writeResource } from '../../services/files/operations.ts';
import { parentOf } from '../../services/files/paths.ts';
import { statfsDiskSpace } from '../../services/uploads/disk.ts';
import { serveDownload } from '../download.ts';
import { assertUnlocked, checkIf, type DavRequest } from './request.ts';
import { hasBody } from './xml.ts';
import type { FmContext } from '../types.ts';
import { auditAs } from '../audit.ts';

export const DAV_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', 'MKCOL', 'COPY', 'MOVE', 'PROPFIND', 'PROPPATCH', 'LOCK', 'UNLOCK'];

export function handleOptions(ctx: FmContext): void {
  ctx.set('Allow', DAV_METHODS.join(', '));
  ctx.set('MS-Author-Via', 'DAV');
  ctx.status = 200;
  ctx.body = '';
}

/** A file's bytes (Range, conditional requests: the /api/raw download); a folder gets a short note. */
export async function handleGet(ctx: FmContext, req: DavRequest): Promise<void> {
  const target = await ctx.services.gate.resolve(req.access, req.virtual, 'read');
  if (target.isDir) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'This is a WebDAV folder of fm: open it with a WebDAV client (see docs/webdav.md).\n';
    return;
  }
  auditAs(ctx, { action: 'download', path: req.virtual });
  await serveDownload(ctx, { access: req.access, virtual: req.virtual, inline: true });
}

/** 409 unless the parent folder of a new entry exists (WebDAV never creates parents). */
export async function assertParentFolder(ctx: FmContext, req: DavRequest, virtual: string): Promise<void> {
  const parent = parentOf(virtual);
  if (parent === '/') return;
  try {
    const t = await ctx.services.gate.resolve(req.access, parent, 'read');
    if (t.isDir) return;
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  throw new ConflictError('the parent folder does not exist');
}

function mayModify(req: DavRequest): boolean {
  return req.access.user.perm.admin || req.access.user.perm.modify;
}

/** PUT: streamed into a temporary file beside the target and moved into place (placeFile). */
export async function handlePut(ctx: FmContext, req: DavRequest): Promise<void> {
  try {
    if (ctx.get('Content-Range')) throw new BadRequestError('a PUT with Content-Range is not supported');
    const tokens = await checkIf(ctx, req);
    const { gate, options } = ctx.services;
    if (req.virtual === '/' || req.trailingSlash) throw new MethodNotAllowedError('PUT names a file, not a folder');
    const probe = await gate.resolve(req.access, req.virtual, mayModify(req) ? 'modify' : 'create', { mustExist: false, allowRoot: false });
    auditAs(ctx, { action: probe.exists ? 'save' : 'create', path: req.virtual });
    if (probe.exists && probe.isDir) throw new MethodNotAllowedError('PUT cannot replace a folder');
    await assertParentFolder(ctx, req, req.virtual);
    assertUnlocked(ctx, tokens, { target: probe, membership: !probe.exists });
    const declared = ctx.get('Content-Length');
    const length = /^\d+$/.test(declared) ? Number(declared) : undefined;
    const maxSize = req.access.settings.maxUploadSize;
    if (maxSize > 0 && length !== undefined && length > maxSize) throw new PayloadTooLargeError(`uploads are limited to ${maxSize} bytes`);
    if (length !== undefined && length > (await (options.diskSpace ?? statfsDiskSpace).freeBytes(path.dirname(probe.real)))) {
      throw new InsufficientStorageError('not enough free disk space for this file');
    }
    const { stat } = await writeResource(ctx.services, req.access, {
      virtual: req.virtual,
      folder: false,
      kind: probe.exists ? 'save' : 'create',
      override: false,
      body: ctx.req,
      length,
      maxSize,
    });
    if (stat) auditAs(ctx, { bytes: Number(stat.size) });
    const ocMtime = ctx.get('X-OC-Mtime');
    if (/^\d+(\.\d+)?$/.test(ocMtime)) {
      await setModified(ctx.services, req.access, req.virtual, new Date(Number(ocMtime) * 1000), probe.exists ? 'modify' : 'create');
      ctx.set('X-OC-MTime', 'accepted');
    } else if (stat) ctx.set('ETag', etagOf(stat));
    ctx.status = probe.exists ? 204 : 201;
  } catch (err) {
    // The body was not (fully) read: close the connection after answering.
    if (!ctx.req.readableEnded) ctx.set('Connection', 'close');
    throw err;
  }
}

export async function handleDelete(ctx: FmContext, req: DavRequest): Promise<void> {
  auditAs(ctx, { action: 'delete', path: req.virtual });
  const tokens = await checkIf(ctx, req);
  const target = await ctx.services.gate.resolve(req.access, req.virtual, 'delete', { allowRoot: false });
  assertUnlocked(ctx, tokens, { target, recursive: true, membership: true });
  await deleteResource(ctx.services, req.access, req.virtual);
  ctx.status = 204;
}

export async function handleMkcol(ctx: FmContext, req: DavRequest): Promise<void> {
  auditAs(ctx, { action: 'create', path: req.virtual });
  if (hasBody(ctx)) throw new UnsupportedMediaTypeError('MKCOL takes no body');
  const tokens = await checkIf(ctx, req);
  const target = await ctx.services.gate.resolve(req.access, req.virtual, 'create', { mustExist: false });
  if (target.exists) throw new MethodNotAllowedError('something with that name exists');
  await assertParentFolder(ctx, req, req.virtual);
  assertUnlocked(ctx, tokens, { target, membership: true });
  await writeResource(ctx.services, req.access, { virtual: req.virtual, folder: true, kind: 'create', override: false, body: ctx.req, maxSize: 0 });
  ctx.status = 201;
}
