/**
 * PROPFIND Depth 1 of a large folder: the listing workers lstat the entries and write their
 * `<D:response>`s (disk/dav-batch.ts) while this thread puts the names in order; links, names
 * that are not UTF-8 and entries with dead properties are described here, as for small folders.
 */
import path from 'node:path';
import type { Gate, Target } from '../../services/files/gate.ts';
import { DAV_DIR, DAV_FILE, DAV_ON_MAIN } from '../../services/files/disk/dav-batch.ts';
import { PARALLEL_MIN, renderDavInWorkers } from '../../services/files/disk/listing-worker.ts';
import { lstatOrUndefined } from '../../services/files/disk/lookup.ts';
import { visibleEntries } from '../../services/files/listing.ts';
import { mimeOf } from '../../services/files/types.ts';
import type { FmContext } from '../types.ts';
import { hrefOf } from './hrefs.ts';
import { etagAt, type DavRequest } from './request.ts';
import { DAV_NS, escapeXml, propElement } from './xml.ts';

/** The live properties the workers can write (the lock ones depend on the lock table). */
const WORKER_PROPS = new Set(['creationdate', 'displayname', 'getcontentlength', 'getcontenttype', 'getetag', 'getlastmodified', 'resourcetype']);

/** An entry described on the main thread. */
export interface MainEntry {
  virtual: string;
  abs: string;
  real: string;
  isDir: boolean;
  size: number;
  mtimeMs: number;
  etag?: string;
}

export interface LargePropfind {
  /** The live properties of each member in allprop order (lock ones left out), or the wanted ones. */
  props: Array<{ ns: string; name: string }>;
  /** allprop: the properties an entry does not have are left out rather than answered 404. */
  allprop: boolean;
  /** Absolute paths that have dead properties. */
  withProps: Set<string>;
  /** Describes an entry like a small folder's member. */
  describe(entry: MainEntry): Promise<string>;
}

/**
 * The members' responses of a folder (folders first, then files, each by name), or undefined
 * when the folder is small, its path is not UTF-8, or no worker is usable.
 */
export async function largeMemberResponses(ctx: FmContext, req: DavRequest, target: Target, how: LargePropfind): Promise<Buffer[] | undefined> {
  if (how.props.some((p) => p.ns === DAV_NS && (p.name === 'supportedlock' || p.name === 'lockdiscovery'))) return undefined;
  const entries = await visibleEntries(ctx.services.gate, target);
  const { names } = entries;
  if (names.length < PARALLEL_MIN || entries.prefixBytes) return undefined;
  const mimes = new Map<string, string>();
  for (const name of names) {
    const key = path.extname(`x.${name}`).toLowerCase();
    if (!mimes.has(key)) mimes.set(key, escapeXml(mimeOf(`x${key}`)));
  }
  const props = how.props.map((p) => (p.ns === DAV_NS && WORKER_PROPS.has(p.name) ? p.name : propElement(p.ns, p.name, '')));
  const rendering = renderDavInWorkers({ hrefPrefix: escapeXml(hrefOf(req.base, target.virtual, true)), mimes, props, allprop: how.allprop }, entries);
  if (!rendering) return undefined;
  const byName = entries.ascending();
  const parts = await rendering;

  const partOf = new Uint8Array(names.length);
  for (let p = 0; p < parts.length; p++) partOf.fill(p, parts[p].from, parts[p].from + parts[p].result.kind.length);
  const frags = parts.map((p) => Buffer.from(p.result.frag.buffer, p.result.frag.byteOffset, p.result.frag.byteLength));
  const prefix = target.real === '/' ? '/' : `${target.real}/`;
  const vprefix = target.virtual === '/' ? '/' : `${target.virtual}/`;
  const dirs: Buffer[] = [];
  const files: Buffer[] = [];
  for (const i of byName) {
    const part = parts[partOf[i]];
    const at = i - part.from;
    const k = part.result.kind[at];
    const abs = prefix + names[i];
    if (k === DAV_ON_MAIN || ((k === DAV_DIR || k === DAV_FILE) && how.withProps.has(abs))) {
      const entry = await mainEntry(ctx.services.gate, target, vprefix + names[i], abs);
      if (entry) (entry.isDir ? dirs : files).push(Buffer.from(await how.describe(entry)));
    } else if (k === DAV_DIR || k === DAV_FILE) {
      (k === DAV_DIR ? dirs : files).push(frags[partOf[i]].subarray(part.result.fragOff[at], part.result.fragOff[at + 1]));
    }
  }
  return dirs.concat(files);
}

/** An entry read here: links resolved through the gate (left out when they leave the scope or dangle). */
async function mainEntry(gate: Gate, target: Target, virtual: string, abs: string): Promise<MainEntry | undefined> {
  let st = lstatOrUndefined(abs);
  if (!st) return undefined;
  if (st.isSymbolicLink()) {
    const resolved = gate.resolveLinkEntry(target.access, abs);
    if (resolved === 'denied' || resolved === 'dangling') return undefined;
    st = resolved.stat;
  }
  const isDir = st.isDirectory();
  return { virtual, abs, real: abs, isDir, size: isDir ? 0 : st.size, mtimeMs: st.mtimeMs, etag: isDir ? undefined : await etagAt(abs) };
}
