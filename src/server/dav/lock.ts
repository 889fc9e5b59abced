/**
 * LOCK and UNLOCK (RFC 4918 §9.10, §9.11): exclusive and shared write locks with
 * `opaquelocktoken:` tokens and timeouts (services/dav/locks.ts). A LOCK without a body
 * refreshes the lock whose token the If header submits. A LOCK on a missing name creates an
 * empty file (§9.10.4), with create permission, as a PUT would; an existing file needs modify, a
 * folder create or modify. A lock belongs to the user
 * who took it: another user's token neither unlocks nor refreshes it, nor lets a write through.
 */
import { Readable } from 'node:stream';
import { BadRequestError, ConflictError, ForbiddenError, PreconditionFailedError } from '../../errors.ts';
import { parseTimeout } from '../../services/dav/locks.ts';
import { writeResource } from '../../services/files/operations.ts';
import { auditAs } from '../audit.ts';
import { assertParentFolder } from './methods.ts';
import { activeLock } from './props.ts';
import { assertUnlocked, checkIf, type DavRequest } from './request.ts';
import { DAV_NS, davChild, elements, readXmlBody, serializeNodes, XML_HEAD } from './xml.ts';
import type { FmContext } from '../types.ts';

function sendLock(ctx: FmContext, xml: string): void {
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = `${XML_HEAD}<D:prop xmlns:D="DAV:"><D:lockdiscovery>${xml}</D:lockdiscovery></D:prop>\n`;
}

export async function handleLock(ctx: FmContext, req: DavRequest): Promise<void> {
  const { gate, davLocks } = ctx.services;
  const user = ctx.state.user!;
  const body = await readXmlBody(ctx);
  const timeout = parseTimeout(ctx.get('Timeout'));
  const tokens = await checkIf(ctx, req);

  if (!body) {
    if (tokens.size === 0) throw new BadRequestError('a LOCK without a body refreshes a lock: submit its token in an If header');
    const target = await gate.resolve(req.access, req.virtual, 'read');
    const lock = davLocks.covering(target.abs).find((l) => tokens.has(l.token));
    if (!lock) throw new PreconditionFailedError('no lock of this resource has the submitted token');
    if (lock.userId !== user.id) throw new ForbiddenError('the lock belongs to another user');
    davLocks.refresh(lock, timeout);
    ctx.status = 200;
    return sendLock(ctx, activeLock(lock, req.base));
  }

  if (body.ns !== DAV_NS || body.name !== 'lockinfo') throw new BadRequestError('a LOCK body is a DAV:lockinfo element');
  const scopeEl = davChild(body, 'lockscope');
  const scope = scopeEl && elements(scopeEl)[0]?.ns === DAV_NS ? elements(scopeEl)[0].name : undefined;
  if (scope !== 'exclusive' && scope !== 'shared') throw new BadRequestError('DAV:lockscope must be exclusive or shared');
  const typeEl = davChild(body, 'locktype');
  if (!typeEl || !davChild(typeEl, 'write')) throw new BadRequestError('DAV:locktype must be write');
  const owner = davChild(body, 'owner');
  const depth = (ctx.get('Depth') || 'infinity').toLowerCase();
  if (depth !== '0' && depth !== 'infinity') throw new BadRequestError('Depth must be 0 or infinity for LOCK');

  let target = await gate.resolve(req.access, req.virtual, 'read', { mustExist: false });
  const created = !target.exists;
  if (created) {
    await assertParentFolder(ctx, req, req.virtual);
    assertUnlocked(ctx, tokens, { target, membership: true });
    await writeResource(ctx.services, req.access, {
      virtual: req.virtual,
      folder: false,
      kind: 'create',
      override: false,
      body: Readable.from([]),
      length: 0,
      maxSize: 0,
    });
    target = await gate.resolve(req.access, req.virtual, 'read');
    auditAs(ctx, { action: 'create', path: req.virtual, bytes: 0, detail: 'webdav LOCK' });
  } else if (!user.perm.admin && !user.perm.modify && (!target.isDir || !user.perm.create)) {
    // A lock keeps others from writing: only for those who may write there themselves.
    throw new ForbiddenError(
      target.isDir ? 'locking a folder needs the permission to create or modify' : 'locking a file needs the modify permission',
      'permission_required',
    );
  }
  const lock = davLocks.create({
    abs: target.abs,
    virtual: target.virtual,
    userId: user.id,
    scope,
    depth: target.isDir ? (depth as '0' | 'infinity') : '0',
    ownerXml: owner ? serializeNodes(owner.children) : '',
    timeoutSeconds: timeout,
  });
  ctx.set('Lock-Token', `<${lock.token}>`);
  ctx.status = created ? 201 : 200;
  sendLock(ctx, activeLock(lock, req.base));
}

export async function handleUnlock(ctx: FmContext, req: DavRequest): Promise<void> {
  const token = /^\s*<([^>]+)>\s*$/.exec(ctx.get('Lock-Token'))?.[1];
  if (!token) throw new BadRequestError('UNLOCK needs a Lock-Token header');
  const { gate, davLocks } = ctx.services;
  const target = await gate.resolve(req.access, req.virtual, 'read');
  const lock = davLocks.covering(target.abs).find((l) => l.token === token);
  if (!lock) throw new ConflictError('no lock of this resource has that token');
  if (lock.userId !== ctx.state.user!.id) throw new ForbiddenError('the lock belongs to another user');
  davLocks.remove(token);
  ctx.status = 204;
}
