/**
 * PROPPATCH (RFC 4918 §9.2): dead properties, stored per file (repos/dead-props.ts), and the
 * modification time, which clients set through `DAV:getlastmodified` or Windows'
 * `Win32LastModifiedTime`. All instructions succeed or none is applied (the others get 424).
 * Changing a file's properties is modifying it: modify permission, and the file's locks.
 */
import { BadRequestError } from '../../errors.ts';
import { auditAs } from '../audit.ts';
import { setModified } from '../../services/files/operations.ts';
import { assertUnlocked, checkIf, type DavRequest } from './request.ts';
import { hrefOf } from './hrefs.ts';
import { LIVE, QUOTA_PROPS } from './props.ts';
import { DAV_NS, davChild, elements, escapeXml, propElement, propKey, readXmlBody, sendMultistatus, serializeNodes, textOf } from './xml.ts';
import type { FmContext } from '../types.ts';

const MS_NS = 'urn:schemas-microsoft-com:';

interface Instruction {
  set: boolean;
  ns: string;
  name: string;
  xml: string;
  text: string;
}

/** The modification time an instruction sets, if it is one of the mtime setters. */
function mtimeOf(i: Instruction): Date | undefined {
  const setter = (i.ns === DAV_NS && i.name === 'getlastmodified') || (i.ns === MS_NS && i.name === 'Win32LastModifiedTime');
  return setter && i.set ? new Date(i.text.trim()) : undefined;
}

/** Why an instruction cannot be applied (a status line), or undefined. */
function refusal(i: Instruction): string | undefined {
  const mtime = mtimeOf(i);
  if (mtime) return Number.isNaN(mtime.getTime()) ? '409 Conflict' : undefined;
  if (i.ns === DAV_NS && (LIVE.includes(i.name) || QUOTA_PROPS.includes(i.name))) return '403 Forbidden';
  return undefined;
}

export async function handleProppatch(ctx: FmContext, req: DavRequest): Promise<void> {
  const tokens = await checkIf(ctx, req);
  const body = await readXmlBody(ctx);
  if (!body || body.ns !== DAV_NS || body.name !== 'propertyupdate') throw new BadRequestError('a PROPPATCH body is a DAV:propertyupdate element');
  const { gate, repos } = ctx.services;
  const target = await gate.resolve(req.access, req.virtual, 'modify', { mustExist: true });
  assertUnlocked(ctx, tokens, { target });

  const instructions: Instruction[] = [];
  for (const op of elements(body)) {
    if (op.ns !== DAV_NS || (op.name !== 'set' && op.name !== 'remove')) continue;
    const prop = davChild(op, 'prop');
    if (!prop) throw new BadRequestError(`DAV:${op.name} needs a DAV:prop`);
    for (const p of elements(prop)) instructions.push({ set: op.name === 'set', ns: p.ns, name: p.name, xml: serializeNodes(p.children), text: textOf(p) });
  }
  if (instructions.length === 0) throw new BadRequestError('DAV:propertyupdate holds no property');

  const refusals = instructions.map(refusal);
  const failed = refusals.some(Boolean);
  if (!failed) {
    const dead = await repos.deadProps.get(target.abs);
    let mtime: Date | undefined;
    for (const i of instructions) {
      const setsTime = mtimeOf(i);
      if (setsTime) mtime = setsTime;
      else if (i.set) dead[propKey(i.ns, i.name)] = i.xml;
      else delete dead[propKey(i.ns, i.name)];
    }
    await repos.deadProps.set(target.abs, dead);
    if (mtime) await setModified(ctx.services, req.access, target.virtual, mtime);
    // The properties' names, never their values (as for settings).
    const names = [...new Set(instructions.map((i) => i.name))];
    auditAs(ctx, { action: 'save', path: target.virtual, detail: `webdav properties: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}` });
  }
  const byStatus = new Map<string, string>();
  instructions.forEach((i, n) => {
    const status = refusals[n] ?? (failed ? '424 Failed Dependency' : '200 OK');
    byStatus.set(status, (byStatus.get(status) ?? '') + propElement(i.ns, i.name, ''));
  });
  let propstats = '';
  for (const [status, props] of byStatus) propstats += `<D:propstat><D:prop>${props}</D:prop><D:status>HTTP/1.1 ${status}</D:status></D:propstat>`;
  sendMultistatus(ctx, `<D:response><D:href>${escapeXml(hrefOf(req.base, target.virtual, target.isDir))}</D:href>${propstats}</D:response>`);
}
