/**
 * WebDAV requests for the tests: raw HTTP (the path's bytes reach the server as written) with
 * a user's Basic credentials, and the hrefs of a multistatus answer.
 */
import { rawRequest, type RawResponse } from './http-raw.ts';

export interface DavOptions {
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type Dav = (method: string, rawPath: string, opts?: DavOptions) => Promise<RawResponse>;

/** A client for `base` (the server URL) signed in as `user`; paths are below `/dav`. */
export function davClient(base: string, user: string, password: string, prefix = '/dav'): Dav {
  const auth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  return (method, rawPath, opts = {}) =>
    rawRequest(base, { method, path: `${prefix}${rawPath}`, headers: { Authorization: auth, ...opts.headers }, body: opts.body });
}

/** The `<D:href>` values of a multistatus, in order. */
export function hrefs(xml: string): string[] {
  return [...xml.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => m[1]);
}

/** The text of the first element with this local name (any prefix), or undefined. */
export function propText(xml: string, name: string): string | undefined {
  return new RegExp(`<(?:\\w+:)?${name}(?: [^>]*)?>([^<]*)</(?:\\w+:)?${name}>`).exec(xml)?.[1];
}

export const LOCK_BODY = (scope: 'exclusive' | 'shared' = 'exclusive') =>
  `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:${scope}/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>tester</D:owner></D:lockinfo>`;
