/**
 * PROPFIND (RFC 4918 §9.1): the live properties of an entry and, depth 1, of the entries of a
 * folder (the listing's: hidden, denied and fm's own entries are absent, links leaving the
 * scope too), plus the dead properties stored by PROPPATCH. Depth infinity is refused.
 */
import path from 'node:path';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import type { Target } from '../../services/files/gate.ts';
import { isoTime, KIND_DANGLING, scanFolder } from '../../services/files/listing.ts';
import { KIND_DIR } from '../../services/files/disk/listing-worker.ts';
import { displayName } from '../../services/files/disk/names.ts';
import { baseName } from '../../services/files/paths.ts';
import { statNsMany } from '../../services/files/disk/lookup.ts';
import { etagOf } from '../../services/files/operations.ts';
import { mimeOf } from '../../services/files/types.ts';
import type { DavLock } from '../../services/dav/locks.ts';
import { hrefOf } from './hrefs.ts';
import { etagAt, type DavRequest } from './request.ts';
import { DAV_NS, davChild, elements, escapeXml, propElement, propKey, readXmlBody, sendDavError, sendMultistatus, sendMultistatusBuffers } from './xml.ts';
import { largeMemberResponses } from './propfind-large.ts';
import type { FmContext } from '../types.ts';
import type { Usage } from '../../services/quota-usage.ts';

/** The live properties fm computes, in allprop order. */
export const LIVE = [
  'creationdate',
  'displayname',
  'getcontentlength',
  'getcontenttype',
  'getetag',
  'getlastmodified',
  'resourcetype',
  'supportedlock',
  'lockdiscovery',
];

/** RFC 4331's quota properties: answered on folders for a user with a byte quota, when asked for by name. */
export const QUOTA_PROPS = ['quota-available-bytes', 'quota-used-bytes'];

type Wanted = { kind: 'allprop' } | { kind: 'propname' } | { kind: 'prop'; props: Array<{ ns: string; name: string }> };

/** One entry to describe. */
interface Entry {
  virtual: string;
  abs: string;
  real: string;
  isDir: boolean;
  size: number;
  mtimeMs: number;
  etag?: string;
}

async function readWanted(ctx: FmContext): Promise<Wanted> {
  const body = await readXmlBody(ctx);
  if (!body) return { kind: 'allprop' };
  if (body.ns !== DAV_NS || body.name !== 'propfind') throw new BadRequestError('a PROPFIND body is a DAV:propfind element');
  if (davChild(body, 'allprop')) return { kind: 'allprop' };
  if (davChild(body, 'propname')) return { kind: 'propname' };
  const prop = davChild(body, 'prop');
  if (!prop) throw new BadRequestError('DAV:propfind needs allprop, propname or prop');
  return { kind: 'prop', props: elements(prop).map((p) => ({ ns: p.ns, name: p.name })) };
}

export async function handlePropfind(ctx: FmContext, req: DavRequest): Promise<void> {
  const depth = ctx.get('Depth') || 'infinity';
  if (depth.toLowerCase() === 'infinity') return sendDavError(ctx, 403, 'propfind-finite-depth');
  if (depth !== '0' && depth !== '1') throw new BadRequestError('Depth must be 0, 1 or infinity');
  const wanted = await readWanted(ctx);
  const withEtag = wanted.kind !== 'prop' || wanted.props.some((p) => p.ns === DAV_NS && p.name === 'getetag');
  const shared = req.share?.file;
  const target = shared ? undefined : await ctx.services.gate.resolve(req.access, req.virtual, 'read');
  const entries = shared ? await sharedFileEntries(req, shared, depth) : [await selfEntry(target!, withEtag)];
  // Few files have dead properties: find which of these do once, then read only those. A
  // share's view shows none (the share page does not).
  const withProps = new Set<string>();
  if (!req.share) {
    for (const k of await ctx.services.repos.deadProps.under(entries[0].real)) withProps.add(k);
    if (entries[0].abs !== entries[0].real) for (const k of await ctx.services.repos.deadProps.under(entries[0].abs)) withProps.add(k);
  }
  const { user } = req.access;
  const asksQuota = wanted.kind === 'prop' && wanted.props.some((p) => p.ns === DAV_NS && QUOTA_PROPS.includes(p.name));
  const quota = asksQuota && !req.share && user.quota > 0 ? { quota: user.quota, ...(await ctx.services.quotas.usageOf(user)) } : undefined;
  const deadOf = async (e: Entry) => (withProps.has(e.abs) ? await ctx.services.repos.deadProps.get(e.abs) : {});
  if (target?.isDir && depth === '1') {
    // The listing workers write what needs neither the lock table nor the quota.
    if (wanted.kind !== 'propname' && !quota) {
      const props =
        wanted.kind === 'prop' ? wanted.props : LIVE.filter((n) => n !== 'supportedlock' && n !== 'lockdiscovery').map((name) => ({ ns: DAV_NS, name }));
      const describeMember = async (e: Entry) => describe(ctx, req, e, wanted, await deadOf(e), true);
      const members = await largeMemberResponses(ctx, req, target, { props, allprop: wanted.kind === 'allprop', withProps, describe: describeMember });
      if (members) {
        const self = describe(ctx, req, entries[0], wanted, await deadOf(entries[0]), false);
        return sendMultistatusBuffers(ctx, [Buffer.from(self), ...members]);
      }
    }
    entries.push(...(await childEntries(ctx, target, withEtag)));
  }
  const out: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    out.push(describe(ctx, req, e, wanted, await deadOf(e), i > 0, quota));
  }
  sendMultistatus(ctx, out);
}

/** A file share's view: its root is a folder holding the one file, under the file's name. */
async function sharedFileEntries(req: DavRequest, file: Target, depth: string): Promise<Entry[]> {
  const own = { ...(await selfEntry(file, true)), virtual: `/${baseName(file.virtual)}` };
  if (req.virtual === own.virtual) return [own];
  if (req.virtual !== '/') throw new NotFoundError('not found');
  const root: Entry = { ...own, virtual: '/', isDir: true, size: 0, etag: undefined };
  return depth === '1' ? [root, own] : [root];
}

async function selfEntry(target: Target, withEtag: boolean): Promise<Entry> {
  const st = target.stat ?? target.lstat!;
  return {
    virtual: target.virtual,
    abs: target.abs,
    real: target.real,
    isDir: target.isDir,
    size: target.isDir ? 0 : st.size,
    mtimeMs: st.mtimeMs,
    etag: withEtag && !target.isDir ? await etagAt(target.real) : undefined,
  };
}

async function childEntries(ctx: FmContext, target: Target, withEtag: boolean): Promise<Entry[]> {
  const { scan, order } = await scanFolder(ctx.services.gate, target, { by: 'name', asc: true });
  const prefix = target.virtual === '/' ? '/' : `${target.virtual}/`;
  const entries: Entry[] = [];
  for (const i of order) {
    if (!scan.present[i] || scan.kind[i] & KIND_DANGLING) continue;
    const abs = path.join(target.real, scan.names[i]);
    const isDir = (scan.kind[i] & KIND_DIR) !== 0;
    entries.push({ virtual: prefix + scan.names[i], abs, real: abs, isDir, size: isDir ? 0 : scan.size[i], mtimeMs: scan.mtime[i] });
  }
  if (withEtag) {
    // ETags need nanosecond times, which the listing's scan does not keep: one stat per file.
    const files = entries.filter((e) => !e.isDir);
    const stats = await statNsMany(files.map((e) => e.real));
    files.forEach((e, n) => {
      const st = stats[n];
      if (st?.isFile()) e.etag = etagOf(st);
    });
  }
  return entries;
}

/** The value of a live property, or undefined when the entry does not have it. */
function liveValue(ctx: FmContext, req: DavRequest, e: Entry, name: string): string | undefined {
  switch (name) {
    case 'creationdate':
      return isoTime(e.mtimeMs);
    case 'displayname':
      return escapeXml(displayName(baseName(e.virtual)));
    case 'getcontentlength':
      return e.isDir ? undefined : String(e.size);
    case 'getcontenttype':
      return e.isDir ? undefined : escapeXml(mimeOf(baseName(e.virtual)));
    case 'getetag':
      return e.etag && escapeXml(e.etag);
    case 'getlastmodified':
      return httpDate(e.mtimeMs);
    case 'resourcetype':
      return e.isDir ? '<D:collection/>' : '';
    case 'supportedlock':
      return req.share ? undefined : SUPPORTED_LOCK;
    case 'lockdiscovery':
      if (req.share) return undefined;
      return ctx.services.davLocks.isEmpty
        ? ''
        : ctx.services.davLocks
            .covering(e.abs)
            .map((l) => activeLock(l, req.base))
            .join('');
    default:
      return undefined;
  }
}

let lastSecond = Number.NaN;
let lastHttpDate = '';
/** `Date#toUTCString()` of a time in ms, remembered per second (entries of a folder share many). */
function httpDate(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastHttpDate = new Date(second * 1000).toUTCString();
  }
  return lastHttpDate;
}

const SUPPORTED_LOCK = ['exclusive', 'shared']
  .map((s) => `<D:lockentry><D:lockscope><D:${s}/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>`)
  .join('');

/** A `<D:activelock>` (PROPFIND lockdiscovery and the LOCK answer). */
export function activeLock(l: DavLock, base: string): string {
  const remaining = Math.max(0, Math.round((l.expiresAt - Date.now()) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope><D:${l.scope}/></D:lockscope><D:depth>${l.depth}</D:depth>` +
    `${l.ownerXml ? `<D:owner>${l.ownerXml}</D:owner>` : ''}<D:timeout>Second-${remaining}</D:timeout>` +
    `<D:locktoken><D:href>${l.token}</D:href></D:locktoken><D:lockroot><D:href>${escapeXml(hrefOf(base, l.virtual, false))}</D:href></D:lockroot></D:activelock>`
  );
}

function propstat(props: string, status: string): string {
  return `<D:propstat><D:prop>${props}</D:prop><D:status>HTTP/1.1 ${status}</D:status></D:propstat>`;
}

/** The value of a quota property of a folder (the scope's figures, whichever folder), or undefined. */
function quotaValue(name: string, e: Entry, quota?: Usage & { quota: number }): string | undefined {
  if (!quota || !e.isDir) return undefined;
  return String(name === 'quota-used-bytes' ? quota.bytes : Math.max(0, quota.quota - quota.bytes));
}

function describe(
  ctx: FmContext,
  req: DavRequest,
  e: Entry,
  wanted: Wanted,
  dead: Record<string, string>,
  member: boolean,
  quota?: Usage & { quota: number },
): string {
  let found = '';
  let missing = '';
  if (wanted.kind === 'prop') {
    for (const p of wanted.props) {
      const live = p.ns === DAV_NS && (LIVE.includes(p.name) || QUOTA_PROPS.includes(p.name));
      const value = !live ? dead[propKey(p.ns, p.name)] : QUOTA_PROPS.includes(p.name) ? quotaValue(p.name, e, quota) : liveValue(ctx, req, e, p.name);
      if (value === undefined) missing += propElement(p.ns, p.name, '');
      else found += propElement(p.ns, p.name, value);
    }
  } else {
    for (const name of LIVE) {
      // RFC 4918 §9.1 lets allprop leave out lengthy live properties: the lock ones are given
      // for the requested resource only (the same for every entry, and 40 % of a listing's bytes).
      if (member && wanted.kind === 'allprop' && (name === 'supportedlock' || name === 'lockdiscovery')) continue;
      const value = liveValue(ctx, req, e, name);
      if (value !== undefined) found += propElement(DAV_NS, name, wanted.kind === 'propname' ? '' : value);
    }
    for (const [key, value] of Object.entries(dead)) {
      const close = key.indexOf('}');
      found += propElement(key.slice(1, close), key.slice(close + 1), wanted.kind === 'propname' ? '' : value);
    }
  }
  return (
    `<D:response><D:href>${escapeXml(hrefOf(req.base, e.virtual, e.isDir))}</D:href>` +
    `${found || !missing ? propstat(found, '200 OK') : ''}${missing ? propstat(missing, '404 Not Found') : ''}</D:response>`
  );
}
