/**
 * File operations behind /api/resources: create (POST), save (PUT), copy and move (PATCH) and
 * delete. Each resolves its paths through the gate, checks every descendant of a recursive
 * operation, reserves room in the user's quota before any byte (quotas.ts), runs inside the
 * event hooks and announces what changed on disk. The disk is
 * changed only through the folder handles the gate hands out, opened after the before-hooks
 * ran (disk/handle.ts), and every file is written by disk/place.ts.
 */
import path from 'node:path';
import type { Readable } from 'node:stream';
import { freeNameCandidates } from '../../api/files.ts';
import { BadRequestError, ConflictError, ForbiddenError, PayloadTooLargeError } from '../../errors.ts';
import type { FileEvents } from '../events.ts';
import type { HookEvent, HookRunner } from '../hooks.ts';
import type { TrashService } from '../trash/index.ts';
import type { QuotaService } from '../quotas.ts';
import { receivedBytes } from '../young-gc.ts';
import { realToVirtual, type Access, type Gate, type Target } from './gate.ts';
import { lstatOrMissing } from './disk/lookup.ts';
import { placeFile } from './disk/place.ts';
import { copyEntry, moveEntry, removeEntry } from './disk/tree.ts';
import type { BigIntStats, Stats } from './disk/types.ts';
import { baseName, cleanPath, isWithin, parentOf } from './paths.ts';

/** The services an operation needs. */
export interface OperationServices {
  gate: Gate;
  hooks: HookRunner;
  events: FileEvents;
  /** Where deletes go while the trash is on (settings.trashRetention > 0). */
  trash?: Pick<TrashService, 'put'>;
  quotas: QuotaService;
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
  stat?: Stats;
}

/** `"<hex mtime in ns><hex size>"`, filebrowser's ETag. */
export function etagOf(st: Stats | BigIntStats): string {
  const mtimeNs = 'mtimeNs' in st ? st.mtimeNs : BigInt(Math.round(st.mtimeMs * 1e3)) * 1000n;
  return `"${mtimeNs.toString(16)}${BigInt(st.size).toString(16)}"`;
}

function hookContext(access: Access, event: HookEvent, file: string, destination?: string) {
  return { event, user: access.user, file, destination: destination ?? access.rootReal, scope: access.rootReal };
}

/** Whether the user may replace existing files (a name that appears during a write is replaced only then). */
function mayModify(access: Access): boolean {
  return access.user.perm.admin || access.user.perm.modify;
}

/** POST and PUT: a file from the streamed body (atomically), or a folder. */
export async function writeResource(svc: OperationServices, access: Access, input: WriteInput): Promise<WriteResult> {
  const { gate } = svc;
  const event: HookEvent = input.kind === 'create' ? 'upload' : 'save';
  const { dirMode, fileMode } = access.settings;
  if (input.folder || input.virtual === '/') {
    const target = await gate.resolve(access, input.virtual, 'create', { mustExist: false });
    if (target.exists && !target.isDir) throw new ConflictError('a file with that name exists', 'exists');
    const room = await svc.quotas.reserve(access.user, { bytes: 0, files: target.exists ? 0 : 1 });
    try {
      await svc.hooks.around(hookContext(access, event, target.real), async () => {
        if (target.virtual === '/') return;
        await gate.withParent(target, { create: dirMode }, async (dir, name) => {
          await (await dir.ensureChild(name, dirMode)).close();
        });
      });
      await svc.events.emit('written', { abs: target.real, isDir: true, user: access.user });
    } finally {
      room.release();
    }
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
      if (target.isDir) throw new ConflictError('a folder with that name exists', 'exists');
      if (!input.override) throw new ConflictError('a file with that name exists', 'exists');
      gate.checkPermission(access, 'modify');
    }
    override = input.override && (target.exists || mayModify(access));
  } else {
    // Probed as a write (with whichever write permission the user has): a dangling link is
    // refused like every other write path does, not reported missing.
    const probe = await gate.resolve(access, input.virtual, mayModify(access) ? 'modify' : 'create', { mustExist: false, allowRoot: false });
    if (probe.exists && probe.isDir) throw new BadRequestError('cannot save a folder');
    target = await gate.resolve(access, input.virtual, probe.exists ? 'modify' : 'create', { mustExist: false, allowRoot: false });
    // A save replaces whatever is there by then (the last writer wins), if the user may modify.
    override = target.exists || mayModify(access);
  }

  // Only the difference to the replaced file counts; a body of unknown length is covered as it comes.
  const replaced = target.exists ? (target.stat?.size ?? 0) : 0;
  const room = await svc.quotas.reserve(access.user, { bytes: (input.length ?? 0) - replaced, files: target.exists ? 0 : 1 });
  let written = 0;
  const onBytes = (n: number) => {
    written += n;
    receivedBytes(n);
    if (input.maxSize > 0 && written > input.maxSize) throw new PayloadTooLargeError(`uploads are limited to ${input.maxSize} bytes`);
    room.cover(written - replaced);
  };
  try {
    const placed = await svc.hooks.around(hookContext(access, event, target.real), () =>
      gate.withParent(target, { create: dirMode }, (dir, name) =>
        placeFile(dir, name, { kind: 'stream', stream: input.body, onBytes }, { override, mode: fileMode, keepReplacedMode: true }),
      ),
    );
    await svc.events.emit('written', { abs: target.real, isDir: false, user: access.user });
    return { stat: placed.stat };
  } finally {
    room.release();
  }
}

/**
 * DELETE: a file, a link (never its target) or a whole folder, every descendant checked. With
 * the trash on, the entry is moved into the user's trash instead (services/trash).
 */
export async function deleteResource(svc: OperationServices, access: Access, virtual: string): Promise<void> {
  const target = await svc.gate.resolve(access, virtual, 'delete', { allowRoot: false });
  await svc.gate.checkTree(target);
  const trash = access.settings.trashRetention > 0 ? svc.trash : undefined;
  // The folder is opened after the before-hooks: what is removed is what the gate checked.
  await svc.hooks.around(hookContext(access, 'delete', target.abs), () =>
    trash ? trash.put(target) : svc.gate.withParent(target, { entry: true }, (dir, name) => removeEntry(dir, name)),
  );
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
    const caseOnly =
      !isCopy && toV !== fromV && toV.toLowerCase() === fromV.toLowerCase() && src.lstat!.ino === dst.lstat!.ino && src.lstat!.dev === dst.lstat!.dev;
    if (caseOnly) {
      // A case-only rename on a case-insensitive file system: the "existing" entry is the source.
    } else if (input.rename) {
      dst = await gate.resolve(access, await freeName(dst), destOp, { mustExist: false, allowRoot: false });
    } else if (!input.override) {
      throw new ConflictError('the destination exists', 'exists');
    } else {
      gate.checkPermission(access, 'modify');
      if (dst.real === src.real || dst.abs === src.abs) {
        if (isCopy) throw new BadRequestError('the source and the destination are the same');
        return dst.virtual;
      }
      if (dst.isDir !== src.isDir) throw new ConflictError(`the destination exists and is a ${dst.isDir ? 'folder' : 'file'}`, 'exists');
      override = true;
    }
  }

  await gate.checkTree(src, { mappedTo: dst.virtual, refuseEscapingLinks: isCopy });
  if (override) await gate.checkTree(dst);
  // A move stays inside the user's scope (the gate confines both ends), so only a copy adds.
  const room = isCopy ? await svc.quotas.reserve(access.user, await svc.quotas.roomForCopy(src, override ? dst : undefined)) : undefined;

  // A copy reads and writes contents (through links inside the scope); a move acts on entries.
  const from = isCopy ? src.real : src.abs;
  const to = isCopy ? dst.real : dst.abs;
  try {
    await svc.hooks.around(hookContext(access, input.action, from, to), () =>
      gate.withParent(src, { entry: !isCopy }, (srcDir, srcName) =>
        gate.withParent(dst, { entry: !isCopy, create: access.settings.dirMode }, (dstDir, dstName) =>
          isCopy ? copyEntry(srcDir, srcName, dstDir, dstName, override) : moveEntry(srcDir, srcName, dstDir, dstName, override),
        ),
      ),
    );
    if (isCopy) await svc.events.emit('written', { abs: to, isDir: src.isDir, user: access.user });
    else await svc.events.emit('moved', { fromAbs: from, toAbs: to, isDir: src.isDir, user: access.user });
  } finally {
    room?.release();
  }
  return dst.virtual;
}

/**
 * Sets a file's or folder's modification time (WebDAV clients keep the local file's): modify
 * permission, or create for the file a request has just created.
 */
export async function setModified(svc: OperationServices, access: Access, virtual: string, mtime: Date, op: 'modify' | 'create' = 'modify'): Promise<void> {
  if (Number.isNaN(mtime.getTime())) throw new BadRequestError('invalid modification time');
  const target = await svc.gate.resolve(access, virtual, op, { allowRoot: false, mustExist: true });
  await svc.gate.withParent(target, {}, (dir, name) => dir.setModified(name, mtime));
  await svc.events.emit('written', { abs: target.real, isDir: target.isDir, user: access.user });
}

/** The first free `name (n).ext` beside an existing destination (the contract's rule, src/api/files.ts). */
export async function freeName(dst: Target): Promise<string> {
  const dir = parentOf(dst.virtual);
  const parentAbs = path.dirname(dst.abs);
  for (const candidate of freeNameCandidates(baseName(dst.virtual), dst.isDir)) {
    if (!(await lstatOrMissing(path.join(parentAbs, candidate)))) return dir === '/' ? `/${candidate}` : `${dir}/${candidate}`;
  }
  throw new ConflictError('no free name for the destination');
}

/** The virtual path of an absolute real path inside an access (for events and messages). */
export function virtualOf(access: Access, real: string): string | undefined {
  return realToVirtual(access.rootReal, real);
}
