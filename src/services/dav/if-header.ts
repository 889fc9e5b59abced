/**
 * The WebDAV If header (RFC 4918 §10.4): lists of conditions on lock tokens and entity tags,
 * untagged (about the request's resource) or tagged with the resource they are about. Pure:
 * parsing and evaluation against the state a caller supplies.
 */
import { BadRequestError } from '../../errors.ts';

export interface IfCondition {
  not: boolean;
  /** A state token (`opaquelocktoken:…`, or `DAV:no-lock`, which no resource has). */
  token?: string;
  /** An entity tag, quotes included. */
  etag?: string;
}

export interface IfList {
  /** The resource the list is about (a URL or path as sent); undefined for the request's resource. */
  resource?: string;
  conditions: IfCondition[];
}

/** Parses an If header; 400 when it is malformed. */
export function parseIfHeader(header: string): IfList[] {
  const lists: IfList[] = [];
  let i = 0;
  let resource: string | undefined;
  const fail = (): never => {
    throw new BadRequestError('malformed If header');
  };
  const skipSpace = () => {
    while (i < header.length && /\s/.test(header[i])) i++;
  };
  const until = (close: string) => {
    const end = header.indexOf(close, i + 1);
    if (end < 0) fail();
    const value = header.slice(i + 1, end);
    i = end + 1;
    return value;
  };
  for (;;) {
    skipSpace();
    if (i >= header.length) break;
    if (header[i] === '<') {
      resource = until('>');
      continue;
    }
    if (header[i] !== '(') fail();
    i++;
    const conditions: IfCondition[] = [];
    for (;;) {
      skipSpace();
      if (header[i] === ')') {
        i++;
        break;
      }
      let not = false;
      if (header.slice(i, i + 3).toLowerCase() === 'not') {
        not = true;
        i += 3;
        skipSpace();
      }
      if (header[i] === '<') conditions.push({ not, token: until('>') });
      else if (header[i] === '[') conditions.push({ not, etag: until(']') });
      else fail();
    }
    if (conditions.length === 0) fail();
    lists.push({ resource, conditions });
  }
  if (lists.length === 0) fail();
  return lists;
}

/** What a condition is checked against. */
export interface ResourceState {
  etag?: string;
  /** Tokens of the locks that cover the resource. */
  tokens: string[];
}

/** Strong comparison, as RFC 4918 asks for If (weak tags never match a strong one). */
function etagMatches(cond: string, etag: string | undefined): boolean {
  return etag !== undefined && cond === etag;
}

/**
 * Whether the header holds: at least one list whose conditions all hold. `stateOf` gives the
 * state of a list's resource (undefined: the request's resource).
 */
export function ifHolds(lists: IfList[], stateOf: (resource: string | undefined) => ResourceState): boolean {
  return lists.some((list) => {
    const state = stateOf(list.resource);
    return list.conditions.every((c) => {
      const match = c.token !== undefined ? state.tokens.includes(c.token) : etagMatches(c.etag!, state.etag);
      return match !== c.not;
    });
  });
}

/** Every lock token the header names outside a Not: the tokens the client submits. */
export function submittedTokens(lists: IfList[]): Set<string> {
  const out = new Set<string>();
  for (const l of lists) for (const c of l.conditions) if (c.token && !c.not) out.add(c.token);
  return out;
}
