/**
 * File operations behind /api/resources: create (POST), save (PUT), copy and move (PATCH) and
 * delete. Each resolves its paths through the gate, checks every descendant of a recursive
 * operation, runs inside the event hooks and announces what changed on disk.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BadRequestError, ConflictError, ForbiddenError, PayloadTooLargeError } from '../../errors.ts';
import type { FileEvents } from '../events.ts';
import type { HookEvent, HookRunner } from '../hooks.ts';
import { realToVirtual, type Access, type Gate, type Target } from './gate.ts';
import { mkdirChecked, writeFileAtomic } from './io.ts';
import { copyTree, moveTree, removeTree, sameEntry } from './tree.ts';
import { baseName, cleanPath, isWithin, parentOf } from './paths.ts';

/** The services an operation needs. */
export interface OperationServices {
  gate: Gate;
  hooks: HookRunner;
  events: FileEvents;
}

export interface WriteInput {
  /** Cleaned virtual path. */
  virtual: string;
  /** The request path ended with "/": create a folder (mkdir -p). */
  folder: boolean;
  /** POST creates (409 when the name exists unless override); PUT saves (and creates when missing). */
  kind: 'create' | 'save';
  override: boolean;
  body: Readable;
  /** Declared Content-Length, when given. */
  length?: number;
  /** settings.maxUploadSize; 0 = no limit. */
  maxSize: number;
}

export interface WriteResult {
  /** Stats of the written file (undefined for folders). */
  stat?: fs.Stats;
}

/** `"<hex mtime in ns><hex size>"`, filebrowser's ETag. */
export function etagOf(st: fs.Stats | fs.BigIntStats): string {
  const mtimeNs = 'mtimeNs' in st ? st.mtimeNs : BigInt(Math.round(st.mtimeMs * 1e3)) * 1000n;
  return `"${mtimeNs.toString(16)}${BigInt(st.size).toString(16)}"`;
}

function hookContext(access: Access, event: HookEvent, file: string, destination?: string) {
  return { event, user: access.user, file, destination: destination ?? access.rootReal, scope: access.rootReal };
}

/** POST and PUT: a file from the streamed body (atomically), or a folder. */
export async function writeResource(svc: OperationServices, access: Access, input: WriteInput): Promise<WriteResult> {
  const { gate } = svc;
  const event: HookEvent = input.kind === 'create' ? 'upload' : 'save';
  if (input.folder || input.virtual === '/') {
    const target = await gate.resolve(access, input.virtual, 'create', { mustExist: false });
    if (target.exists && !target.isDir) throw new ConflictError('a file with that name exists');
    await svc.hooks.around(hookContext(access, event, target.real), () => mkdirChecked(target, target.real, access.settings.dirMode));
    await svc.events.emit('written', { abs: target.real, isDir: true, user: access.user });
    return {};
  }

  if (input.maxSize > 0 && input.length !== undefined && input.length > input.maxSize) {
    throw new PayloadTooLargeError(`uploads are limited to ${input.maxSize} bytes`);
  }
  let target: Target;
  let override: boolean;
  if (input.kind === 'create') {
    target = await gate.resolve(access, input.virtual, 'create', { mustExist: false, allowRoot: false });
    if (target.exists) {
      if (target.isDir) throw new ConflictError('a folder with that name exists');
      if (!input.override) throw new ConflictError('a file with that name exists');
      gate.checkPermission(access, 'modify');
    }
    override = input.override;
  } else {
    const probe = await gate.resolve(access, input.virtual, 'read', { mustExist: false, allowRoot: false });
    if (probe.exists && probe.isDir) throw new BadRequestError('cannot save a folder');
    target = await gate.resolve(access, input.virtual, probe.exists ? 'modify' : 'create', { mustExist: false, allowRoot: false });
    override = target.exists;
  }

  let written = 0;
  const onBytes = input.maxSize > 0
    ? (n: number) => {
        written += n;
        if (written > input.maxSize) throw new PayloadTooLargeError(`uploads are limited to ${input.maxSize} bytes`);
      }
    : undefined;
  const stat = await svc.hooks.around(hookContext(access, event, target.real), () =>
    writeFileAtomic(target, input.body, { override, fileMode: access.settings.fileMode, dirMode: access.settings.dirMode, onBytes }),
  );
  await svc.events.emit('written', { abs: target.real, isDir: false, user: access.user });
  return { stat };
}

/** DELETE: a file, a link (never its target) or a whole folder, every descendant checked. */
export async function deleteResource(svc: OperationServices, access: Access, virtual: string): Promise<void> {
  const target = await svc.gate.resolve(access, virtual, 'delete', { allowRoot: false });
  await svc.gate.checkTree(target);
  await svc.hooks.around(hookContext(access, 'delete', target.abs), () => removeTree(target.abs));
  await svc.events.emit('removed', { abs: target.abs, isDir: target.isDir, user: access.user });
}

export interface PatchInput {
  action: 'copy' | 'rename';
  from: string;
  to: string;
  override: boolean;
  /** Pick a free name (`name (1).ext`) when the destination exists. */
  rename: boolean;
}

/** PATCH: copy (create permission) or move/rename (rename permission). Returns the final destination. */
export async function patchResource(svc: OperationServices, access: Access, input: PatchInput): Promise<string> {
  const { gate } = svc;
  const fromV = cleanPath(input.from).path;
  const toV = cleanPath(input.to).path;
  if (fromV === '/' || toV === '/') throw new ForbiddenError('not allowed on the root folder');
  const isCopy = input.action === 'copy';
  let src: Target;
  if (isCopy) {
    gate.checkPermission(access, 'create');
    src = await gate.resolve(access, fromV, 'read', { allowRoot: false });
  } else {
    src = await gate.resolve(access, fromV, 'rename', { allowRoot: false });
  }
  if (toV !== fromV && isWithin(fromV, toV)) throw new BadRequestError('the destination is inside the source');

  const destOp = isCopy ? 'create' : 'rename';
  let dst = await gate.resolve(access, toV, destOp, { mustExist: false, allowRoot: false });
  // A destination reached through links may still land inside the source.
  if (src.isDir && dst.real !== src.real && isWithin(src.real, dst.real)) throw new BadRequestError('the destination is inside the source');

  let override = false;
  if (dst.exists) {
    const caseOnly = !isCopy && toV !== fromV && toV.toLowerCase() === fromV.toLowerCase() && sameEntry(src.lstat!, dst.lstat!);
    if (caseOnly) {
      // A case-only rename on a case-insensitive file system: the "existing" entry is the source.
    } else if (input.rename) {
      dst = await gate.resolve(access, await freeName(access, dst), destOp, { mustExist: false, allowRoot: false });
    } else if (!input.override) {
      throw new ConflictError('the destination exists');
    } else {
      gate.checkPermission(access, 'modify');
      if (dst.real === src.real || dst.abs === src.abs) {
        if (isCopy) throw new BadRequestError('the source and the destination are the same');
        return dst.virtual;
      }
      if (dst.isDir !== src.isDir) throw new ConflictError(`the destination exists and is a ${dst.isDir ? 'folder' : 'file'}`);
      override = true;
    }
  }

  await gate.checkTree(src, { mappedTo: dst.virtual, refuseEscapingLinks: isCopy });
  if (override) await gate.checkTree(dst);

  const from = isCopy ? src.real : src.abs;
  const to = isCopy ? dst.real : dst.abs;
  const opts = { rootReal: access.rootReal, override, skip: (abs: string) => gate.isProtected(abs) };
  await svc.hooks.around(hookContext(access, input.action, from, to), async () => {
    await mkdirChecked(dst, path.dirname(to), access.settings.dirMode);
    if (isCopy) await copyTree(from, to, opts);
    else await moveTree(from, to, opts);
  });
  if (isCopy) await svc.events.emit('written', { abs: to, isDir: src.isDir, user: access.user });
  else await svc.events.emit('moved', { fromAbs: from, toAbs: to, isDir: src.isDir, user: access.user });
  return dst.virtual;
}

/** The first free `name (n).ext` beside an existing destination. */
async function freeName(access: Access, dst: Target): Promise<string> {
  const dir = parentOf(dst.virtual);
  const name = baseName(dst.virtual);
  const ext = dst.isDir ? '' : path.extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  const parentAbs = path.dirname(dst.abs);
  for (let n = 1; n < 10_000; n++) {
    const candidate = `${stem} (${n})${ext}`;
    try {
      await fsp.lstat(path.join(parentAbs, candidate));
    } catch {
      return dir === '/' ? `/${candidate}` : `${dir}/${candidate}`;
    }
  }
  throw new ConflictError('no free name for the destination');
}

/** The virtual path of an absolute real path inside an access (for events and messages). */
export function virtualOf(access: Access, real: string): string | undefined {
  return realToVirtual(access.rootReal, real);
}
