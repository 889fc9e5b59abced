/**
 * WebDAV URLs and names are bytes. A request path is percent-decoded to bytes and read as fm's
 * byte-exact name form (disk/names.ts), so `%FF` names the file whose name is the byte 0xFF;
 * hrefs percent-encode each name's exact bytes, so a client can hand back what it was given.
 */
import { BadGatewayError, BadRequestError, ForbiddenError } from '../../errors.ts';
import { cleanPath, type ParsedPath } from '../../services/files/paths.ts';
import { decodeName, nameBytes } from '../../services/files/disk/names.ts';

/** Bytes of a still-encoded URL path (characters above 0x7F taken as the bytes they arrived as). */
function percentDecode(encoded: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (c === 0x25) {
      const hex = encoded.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new BadRequestError('invalid percent-encoding in path');
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c < 0x100) out.push(c);
    else for (const b of Buffer.from(encoded[i], 'utf8')) out.push(b);
  }
  return Buffer.from(out);
}

/** The cleaned virtual path of an encoded URL path below the WebDAV prefix. */
export function davPath(encodedRest: string): ParsedPath {
  return cleanPath(decodeName(percentDecode(encodedRest || '/')));
}

/** Bytes kept as they are in an href: RFC 3986 unreserved characters. */
function keep(b: number): boolean {
  return (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e;
}

const HEX = Array.from({ length: 256 }, (_, b) => `%${b < 16 ? '0' : ''}${b.toString(16).toUpperCase()}`);

/** Percent-encodes one name's exact bytes. */
export function encodeName(name: string): string {
  let plain = true;
  for (let i = 0; i < name.length && plain; i++) {
    const c = name.charCodeAt(i);
    plain = c < 0x80 && keep(c);
  }
  if (plain) return name;
  let out = '';
  for (const b of nameBytes(name)) out += keep(b) ? String.fromCharCode(b) : HEX[b];
  return out;
}

/** The href of a virtual path under `base` (the base URL plus the WebDAV prefix, no trailing slash). */
export function hrefOf(base: string, virtual: string, isDir: boolean): string {
  if (virtual === '/') return `${base}/`;
  let out = base;
  for (const seg of virtual.slice(1).split('/')) out += `/${encodeName(seg)}`;
  return isDir ? `${out}/` : out;
}

/**
 * The virtual path a Destination header names (RFC 4918 §10.3): an absolute URL on this host,
 * or an absolute path. Another host is 502; a path outside the WebDAV prefix, or one climbing
 * out of it, is 403.
 */
export function destinationPath(header: string, host: string, base: string): string {
  if (!header) throw new BadRequestError('the Destination header is missing');
  let pathPart: string;
  if (/^[a-z][a-z0-9+.-]*:/i.test(header)) {
    let url: URL;
    try {
      url = new URL(header);
    } catch {
      throw new BadRequestError('the Destination header is not a URL');
    }
    if (url.host.toLowerCase() !== host.toLowerCase()) throw new BadGatewayError('the destination is on another server');
    // URL's pathname keeps percent-escapes as sent, but also escapes characters above 0x7F.
    pathPart = header.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').replace(/[?#].*$/, '') || '/';
  } else if (header.startsWith('/')) {
    pathPart = header.replace(/[?#].*$/, '');
  } else {
    throw new BadRequestError('the Destination header must be an absolute URL or path');
  }
  if (pathPart !== base && !pathPart.startsWith(`${base}/`)) throw new ForbiddenError('the destination is outside WebDAV', 'outside_scope');
  return davPath(pathPart.slice(base.length)).path;
}
