/**
 * PROPFIND's `<D:response>` for each entry of a large folder, written in the listing workers
 * (listing-worker.ts ships `davBatch`'s source to them) with one lstat per entry — a bigint one,
 * since the ETag needs nanoseconds. Self-contained: no imports used inside, no outer variables.
 * Links and names that are not UTF-8 are left to the main thread, which resolves links through
 * the gate and knows fm's byte-exact name form.
 */
import type fs from 'node:fs';
import type path from 'node:path';
import type { EntryPaths } from './listing-worker.ts';

export interface DavBatchJob extends EntryPaths {
  /** The folder's href, XML-escaped, with a trailing "/"; names are appended percent-encoded. */
  hrefPrefix: string;
  /** Content types, XML-escaped, by mime-types' lookup key: `extname('x.' + name).toLowerCase()`. */
  mimes: Map<string, string>;
  /**
   * What to answer, in order: a live property's name (creationdate, displayname,
   * getcontentlength, getcontenttype, getetag, getlastmodified, resourcetype), or, starting with
   * "<", the empty element of a property no entry of the batch has (always in the 404 propstat).
   */
  props: string[];
  /** allprop: a property an entry does not have is left out rather than answered 404. */
  allprop: boolean;
}

/** Kinds in a rendered batch. */
export const DAV_MISSING = 0;
export const DAV_DIR = 1;
export const DAV_FILE = 2;
/** A link, or a name that is not UTF-8: the main thread describes it. */
export const DAV_ON_MAIN = 3;

export interface DavBatchResult {
  /** Entry i's `<D:response>` is `frag[fragOff[i] .. fragOff[i+1])` (empty unless DAV_DIR or DAV_FILE). */
  frag: Uint8Array;
  fragOff: Uint32Array;
  kind: Uint8Array;
}

export interface DavBatchDeps {
  fs: typeof fs;
  path: typeof path;
  Buffer: typeof Buffer;
  isoTime: (ms: number) => string;
}

export function davBatch(d: DavBatchDeps, job: DavBatchJob): DavBatchResult {
  const { names, prefix, nameBytes } = job;
  const n = names.length;
  const hex: string[] = [];
  for (let b = 0; b < 256; b++) hex.push(`%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`);
  // RFC 3986 unreserved characters stay as they are in an href (hrefs.ts).
  const keep = (b: number) =>
    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e;
  const encode = (name: string): string => {
    let plain = true;
    for (let i = 0; i < name.length && plain; i++) plain = keep(name.charCodeAt(i));
    if (plain) return name;
    let out = '';
    for (const b of d.Buffer.from(name, 'utf8')) out += keep(b) ? String.fromCharCode(b) : hex[b];
    return out;
  };
  const escapeXml = (s: string) =>
    /[<>&"]/.test(s) ? s.replace(/[<>&"]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : '&quot;')) : s;
  let lastSecond = Number.NaN;
  let lastHttpDate = '';
  const httpDate = (ms: number) => {
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      lastHttpDate = new Date(second * 1000).toUTCString();
    }
    return lastHttpDate;
  };
  const element = (name: string, value: string) => (value === '' ? `<D:${name}/>` : `<D:${name}>${value}</D:${name}>`);

  let buf = d.Buffer.allocUnsafeSlow(Math.max(1 << 16, n * 512));
  let off = 0;
  const fragOff = new Uint32Array(n + 1);
  const kind = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    fragOff[i] = off;
    const name = names[i];
    if (nameBytes?.[i]) {
      kind[i] = 3; // DAV_ON_MAIN
      continue;
    }
    const st = d.fs.lstatSync(prefix + name, { bigint: true, throwIfNoEntry: false });
    if (!st) continue; // vanished meanwhile (DAV_MISSING)
    if (st.isSymbolicLink()) {
      kind[i] = 3; // DAV_ON_MAIN
      continue;
    }
    const dir = st.isDirectory();
    const ms = Number(st.mtimeMs);
    let found = '';
    let missing = '';
    for (const prop of job.props) {
      let value: string | undefined;
      switch (prop) {
        case 'creationdate':
          value = d.isoTime(ms);
          break;
        case 'displayname':
          value = escapeXml(name);
          break;
        case 'getcontentlength':
          value = dir ? undefined : String(st.size);
          break;
        case 'getcontenttype':
          value = dir ? undefined : (job.mimes.get(d.path.extname(`x.${name}`).toLowerCase()) ?? 'application/octet-stream');
          break;
        case 'getetag':
          value = st.isFile() ? `&quot;${st.mtimeNs.toString(16)}${st.size.toString(16)}&quot;` : undefined;
          break;
        case 'getlastmodified':
          value = httpDate(ms);
          break;
        case 'resourcetype':
          value = dir ? '<D:collection/>' : '';
          break;
      }
      if (prop.charCodeAt(0) === 0x3c) missing += prop;
      else if (value === undefined) {
        if (!job.allprop) missing += `<D:${prop}/>`;
      } else found += element(prop, value);
    }
    const xml =
      `<D:response><D:href>${job.hrefPrefix}${encode(name)}${dir ? '/' : ''}</D:href>` +
      `${found || !missing ? `<D:propstat><D:prop>${found}</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>` : ''}` +
      `${missing ? `<D:propstat><D:prop>${missing}</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>` : ''}</D:response>`;
    if (off + xml.length * 3 > buf.length) {
      const bigger = d.Buffer.allocUnsafeSlow(Math.max(buf.length * 2, off + xml.length * 3));
      buf.copy(bigger, 0, 0, off);
      buf = bigger;
    }
    off += buf.write(xml, off);
    kind[i] = dir ? 1 : 2; // DAV_DIR : DAV_FILE
  }
  fragOff[n] = off;
  return { frag: buf.subarray(0, off), fragOff, kind };
}
