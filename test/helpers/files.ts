/**
 * Helpers for the files API tests: raw HTTP requests (the exact bytes of the path reach the
 * server, unlike fetch, which normalises `..` and `%2e%2e`), fixture trees and a canary file
 * outside the served root.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { rawRequest as rawHttp, type RawResponse } from './http-raw.ts';
import path from 'node:path';
import type { Readable } from 'node:stream';

export type { RawResponse } from './http-raw.ts';

export interface RawRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string | Readable;
}

/** Sends `rawPath` byte for byte (no normalisation) and collects the answer. */
export function rawRequest(baseUrl: string, rawPath: string, opts: RawRequestOptions = {}): Promise<RawResponse> {
  return rawHttp(baseUrl, { path: rawPath, ...opts });
}

/** A fixture tree: a string is a file's content, an object a folder, `{ link }` a symlink. */
export type Tree = { [name: string]: string | Buffer | Tree | { link: string } };

export function makeTree(dir: string, tree: Tree): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, value] of Object.entries(tree)) {
    const p = path.join(dir, name);
    if (typeof value === 'string' || Buffer.isBuffer(value)) fs.writeFileSync(p, value);
    else if ('link' in value && typeof value.link === 'string') fs.symlinkSync(value.link, p);
    else makeTree(p, value as Tree);
  }
}

/**
 * A file outside the root whose content and mtime must never change, in a folder where no
 * attack may leave a file: `unchanged()` checks both.
 */
export function canary(dir: string): { path: string; unchanged(): boolean } {
  const p = path.join(dir, 'canary.txt');
  const content = `canary ${crypto.randomUUID()}`;
  fs.writeFileSync(p, content);
  const before = fs.statSync(p);
  return {
    path: p,
    unchanged() {
      if (!fs.existsSync(p)) return false;
      const now = fs.statSync(p);
      const planted = fs.readdirSync(dir).filter((n) => /stolen|pwned|planted|copy|moved/i.test(n));
      return fs.readFileSync(p, 'utf8') === content && now.mtimeMs === before.mtimeMs && planted.length === 0;
    },
  };
}

/** Lists every path under a folder (relative, sorted), links included but not followed. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(e.isDirectory() ? `${r}/` : r);
      if (e.isDirectory()) walk(path.join(d, e.name), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Percent-encodes each segment of a path (how clients put paths in URLs). */
export const enc = (p: string): string => p.split('/').map(encodeURIComponent).join('/');
