/**
 * WebDAV request bodies in, multistatus out. A body is read whole up to a cap (413 beyond),
 * refused when it declares a DTD (no entity of any kind is ever expanded: XXE and "billion
 * laughs" cannot start), checked for well-formedness (400) and parsed by fast-xml-parser; this
 * module then resolves the namespaces, which the parser leaves as prefixes.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { BadRequestError, PayloadTooLargeError } from '../../errors.ts';
import type { FmContext } from '../types.ts';

/** The largest XML body accepted (PROPFIND, PROPPATCH, LOCK bodies are a few KiB at most). */
export const XML_BODY_LIMIT = 1 << 20;

export const DAV_NS = 'DAV:';

/** An element with its namespace resolved. Text children are strings. */
export interface XmlElement {
  ns: string;
  name: string;
  /** Attributes without namespace declarations (name as written). */
  attrs: Record<string, string>;
  children: XmlNode[];
}
export type XmlNode = XmlElement | string;

/** Whether the request carries a body (a declared length above 0, or chunked). */
export function hasBody(ctx: FmContext): boolean {
  return ctx.get('Transfer-Encoding') !== '' || Number(ctx.get('Content-Length') || 0) > 0;
}

/** Reads the body as UTF-8 text, at most XML_BODY_LIMIT bytes. */
export async function readBodyText(ctx: FmContext): Promise<string> {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > XML_BODY_LIMIT) throw tooLarge(ctx);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > XML_BODY_LIMIT) throw tooLarge(ctx);
    chunks.push(chunk as Buffer);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new BadRequestError('the XML body is not valid UTF-8');
  }
}

function tooLarge(ctx: FmContext): PayloadTooLargeError {
  ctx.set('Connection', 'close'); // the rest of the body is not read
  return new PayloadTooLargeError(`XML bodies are limited to ${XML_BODY_LIMIT} bytes`);
}

/** The body's root element, or undefined for an empty body. */
export async function readXmlBody(ctx: FmContext): Promise<XmlElement | undefined> {
  if (!hasBody(ctx)) return undefined;
  const text = await readBodyText(ctx);
  if (text.trim() === '') return undefined;
  return parseXml(text);
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
  // Entities are decoded here, in one pass (decodeEntities): only the five of XML and numeric references.
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** Parses a document; 400 for a DTD, malformed XML or an unknown namespace prefix. */
export function parseXml(text: string): XmlElement {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new BadRequestError('XML with a DOCTYPE or ENTITY declaration is refused');
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new BadRequestError(`malformed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const roots = (parser.parse(text) as RawNode[]).filter((n) => !('#text' in n));
  if (roots.length !== 1) throw new BadRequestError('malformed XML: one root element expected');
  return resolve(roots[0], new Map([['xml', 'http://www.w3.org/XML/1998/namespace']]));
}

/** fast-xml-parser's preserveOrder node: `{ tag: children, ':@': attributes }` or `{ '#text': text }`. */
type RawNode = Record<string, unknown>;

function resolve(raw: RawNode, scope: Map<string, string>): XmlElement {
  const tag = Object.keys(raw).find((k) => k !== ':@')!;
  const rawAttrs = (raw[':@'] ?? {}) as Record<string, string>;
  let inner = scope;
  const attrs: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawAttrs)) {
    const value = decodeEntities(v);
    if (k === 'xmlns' || k.startsWith('xmlns:')) {
      // Namespaces 1.0 §5: only the default namespace may be undeclared (xmlns=""), never a prefix.
      if (k !== 'xmlns' && value === '') throw new BadRequestError(`malformed XML: the prefix ${k.slice(6)} is bound to no namespace`);
      if (inner === scope) inner = new Map(scope);
      inner.set(k === 'xmlns' ? '' : k.slice(6), value);
    } else attrs[k] = value;
  }
  const colon = tag.indexOf(':');
  const prefix = colon < 0 ? '' : tag.slice(0, colon);
  const ns = inner.get(prefix);
  if (ns === undefined && prefix !== '') throw new BadRequestError(`malformed XML: undeclared namespace prefix "${prefix}"`);
  const children: XmlNode[] = [];
  for (const child of (raw[tag] ?? []) as RawNode[]) {
    if ('#text' in child) children.push(decodeEntities(String(child['#text'])));
    else children.push(resolve(child, inner));
  }
  return { ns: ns ?? '', name: colon < 0 ? tag : tag.slice(colon + 1), attrs, children };
}

const ENTITY = /&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);|&/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (whole, ref: string | undefined) => {
    if (ref === undefined) throw new BadRequestError('malformed XML: unknown entity');
    if (ref in NAMED) return NAMED[ref];
    const cp = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    if (!(cp >= 1 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff)) throw new BadRequestError(`malformed XML: bad character reference ${whole}`);
    return String.fromCodePoint(cp);
  });
}

/** The child elements of an element (text dropped). */
export function elements(el: XmlElement): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string');
}

/** The first child element in DAV: with this name. */
export function davChild(el: XmlElement, name: string): XmlElement | undefined {
  return elements(el).find((c) => c.ns === DAV_NS && c.name === name);
}

/** The concatenated text of an element's direct text children. */
export function textOf(el: XmlElement): string {
  return el.children.filter((c): c is string => typeof c === 'string').join('');
}

/** Escapes text for element content and attribute values. */
const NEEDS_ESCAPE = /[<>&"]/;

export function escapeXml(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/[<>&"]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : '&quot;'));
}

/**
 * Serialises nodes with every namespace declared on the element that uses it (valid wherever
 * the fragment lands). Attributes with a prefix other than xml: are left out.
 */
export function serializeNodes(nodes: XmlNode[]): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n === 'string') {
      out += escapeXml(n);
      continue;
    }
    let attrs = n.ns === '' ? ' xmlns=""' : ` xmlns="${escapeXml(n.ns)}"`;
    for (const [k, v] of Object.entries(n.attrs)) if (!k.includes(':') || k.startsWith('xml:')) attrs += ` ${k}="${escapeXml(v)}"`;
    out += `<${n.name}${attrs}>${serializeNodes(n.children)}</${n.name}>`;
  }
  return out;
}

/** `{ns}name`: the key of a property. */
export function propKey(ns: string, name: string): string {
  return `{${ns}}${name}`;
}

/** A property element in a response, declaring its own namespace unless it is DAV:. */
export function propElement(ns: string, name: string, innerXml: string): string {
  if (ns === DAV_NS) return innerXml === '' ? `<D:${name}/>` : `<D:${name}>${innerXml}</D:${name}>`;
  const decl = ns === '' ? 'xmlns=""' : `xmlns="${escapeXml(ns)}"`;
  return innerXml === '' ? `<${name} ${decl}/>` : `<${name} ${decl}>${innerXml}</${name}>`;
}

export const XML_HEAD = '<?xml version="1.0" encoding="utf-8"?>\n';

/** Sends a 207 Multi-Status with the given `<D:response>` elements. */
export function sendMultistatus(ctx: FmContext, responses: string[] | string): void {
  ctx.status = 207;
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = `${XML_HEAD}<D:multistatus xmlns:D="DAV:">${typeof responses === 'string' ? responses : responses.join('')}</D:multistatus>\n`;
}

/** Sends a 207 Multi-Status of `<D:response>` elements already in bytes. */
export function sendMultistatusBuffers(ctx: FmContext, responses: Buffer[]): void {
  ctx.status = 207;
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = Buffer.concat([Buffer.from(`${XML_HEAD}<D:multistatus xmlns:D="DAV:">`), ...responses, Buffer.from('</D:multistatus>\n')]);
}

/** Sends an error with a DAV: precondition element (RFC 4918 §16). */
export function sendDavError(ctx: FmContext, status: number, condition: string): void {
  ctx.status = status;
  ctx.type = 'application/xml; charset=utf-8';
  ctx.body = `${XML_HEAD}<D:error xmlns:D="DAV:"><D:${condition}/></D:error>\n`;
}
