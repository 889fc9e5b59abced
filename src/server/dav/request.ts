/**
 * What every WebDAV handler starts from (the user's access, the request's virtual path, the
 * href base) and the checks before a write: the If header (412 when it does not hold) and the
 * locks (423 unless the client submits the token of every lock the write touches, as the
 * lock's owner).
 */
import path from 'node:path';
import { LockedError, PreconditionFailedError } from '../../errors.ts';
import type { Access, Target } from '../../services/files/gate.ts';
import { etagOf } from '../../services/files/operations.ts';
import { statNs } from '../../services/files/disk/lookup.ts';
import { ifHolds, parseIfHeader, submittedTokens, type ResourceState } from '../../services/dav/if-header.ts';
import { destinationPath, davPath } from './hrefs.ts';
import { userAccess } from '../files-request.ts';
import type { FmContext } from '../types.ts';

export interface DavRequest {
  /** The base URL plus the WebDAV prefix, no trailing slash: every href starts with it. */
  base: string;
  virtual: string;
  trailingSlash: boolean;
  access: Access;
  /**
   * A public share's view (/dav-share/): read-only, and only what the share page shows (no dead
   * properties, no locks). For a file share, the file, shown as the one entry of the share's root.
   */
  share?: { file?: Target };
}

export async function davRequest(ctx: FmContext, base: string, prefix: string): Promise<DavRequest> {
  const parsed = davPath(ctx.path.slice(prefix.length));
  return { base, virtual: parsed.path, trailingSlash: parsed.trailingSlash, access: await userAccess(ctx) };
}

/** The ETag of a file, as /api/raw sends it (undefined for folders and missing entries). */
export async function etagAt(real: string): Promise<string | undefined> {
  const st = await statNs(real);
  return st?.isFile() ? etagOf(st) : undefined;
}

/** The absolute path of a virtual path without deciding on any operation (for lock lookups). */
async function absOf(ctx: FmContext, req: DavRequest, virtual: string): Promise<{ abs: string; real: string } | undefined> {
  try {
    const t = await ctx.services.gate.resolve(req.access, virtual, 'read', { mustExist: false });
    return { abs: t.abs, real: t.real };
  } catch {
    return undefined;
  }
}

/**
 * Evaluates the If header against the resources it names; 412 when it does not hold. Returns
 * the lock tokens the client submitted (none without an If header).
 */
export async function checkIf(ctx: FmContext, req: DavRequest): Promise<Set<string>> {
  const header = ctx.get('If');
  if (!header) return new Set();
  const lists = parseIfHeader(header);
  const locks = ctx.services.davLocks;
  const states = new Map<string | undefined, ResourceState>();
  for (const list of lists) {
    if (states.has(list.resource)) continue;
    let virtual: string | undefined = req.virtual;
    if (list.resource !== undefined) {
      try {
        virtual = destinationPath(list.resource, ctx.host, req.base);
      } catch {
        virtual = undefined; // a resource fm does not serve has no locks and no ETag
      }
    }
    const found = virtual === undefined ? undefined : await absOf(ctx, req, virtual);
    states.set(list.resource, found ? { etag: await etagAt(found.real), tokens: locks.covering(found.abs).map((l) => l.token) } : { tokens: [] });
  }
  if (!ifHolds(lists, (r) => states.get(r)!)) throw new PreconditionFailedError('the If header does not hold');
  return submittedTokens(lists);
}

export interface WriteScope {
  /** The entry written, created, deleted or moved. */
  target: Target;
  /** Its descendants too (DELETE, MOVE, COPY onto a folder). */
  recursive?: boolean;
  /** A name is added to or removed from its folder: the folder's own locks apply too. */
  membership?: boolean;
}

/** 423 unless every lock the write touches was submitted, by the user who holds it. */
export function assertUnlocked(ctx: FmContext, tokens: Set<string>, scope: WriteScope): void {
  const locks = ctx.services.davLocks;
  const { abs } = scope.target;
  const touched = [...locks.covering(abs), ...(scope.recursive ? locks.within(abs) : [])];
  // Adding or removing a name changes the folder: the folder's own locks (any depth) apply too.
  if (scope.membership) touched.push(...locks.covering(path.dirname(abs)));
  const userId = ctx.state.user!.id;
  for (const lock of touched) {
    if (!tokens.has(lock.token) || lock.userId !== userId) throw new LockedError(`${scope.target.virtual} is locked`);
  }
}
