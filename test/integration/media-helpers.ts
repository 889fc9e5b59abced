/**
 * Helpers for the media, search and listing tests: a server whose root lies outside its data
 * folder, raw HTTP requests that keep `..` and odd bytes, and image fixtures.
 */
import fs from 'node:fs';
import { rawRequest, type RawResponse } from '../helpers/http-raw.ts';
import path from 'node:path';
import zlib from 'node:zlib';
import { startFm, tempDir, type FmServer } from '../helpers/server.ts';

export interface MediaServer extends FmServer {
  /** The folder holding the root; `outside-secret.txt` and `outside.jpg` live here, next to the root. */
  outside: string;
}

export const OUTSIDE_SECRET = 'outside-secret-7f3a9c';

/**
 * Starts fm with the root in its own temp folder, beside two files that must never be served.
 * (startFm's default root sits inside the data folder, which the gate protects as a whole.)
 * `stop()` removes everything.
 */
export async function startMediaFm(args: string[] = []): Promise<MediaServer> {
  const outside = tempDir('fm-media-');
  const root = path.join(outside, 'root');
  fs.mkdirSync(root);
  fs.writeFileSync(path.join(outside, 'outside-secret.txt'), OUTSIDE_SECRET);
  fs.writeFileSync(path.join(outside, 'outside-secret.srt'), `1\n00:00:01,000 --> 00:00:02,000\n${OUTSIDE_SECRET}\n`);
  const fm = await startFm({ root, args });
  const stop = fm.stop.bind(fm);
  return Object.assign(fm, {
    outside,
    stop: async () => {
      const code = await stop();
      fs.rmSync(outside, { recursive: true, force: true });
      return code;
    },
  });
}

export type { RawResponse } from '../helpers/http-raw.ts';

/** A GET with the path sent byte for byte (fetch would normalise `..` and `%2e`). */
export function rawGet(base: string, rawPath: string, token: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(base, { path: rawPath, headers: { 'X-Auth': token, ...headers } });
}

/**
 * Traversal attempts to append after a route prefix (PATH class). Each must answer 400, 403
 * or 404 and never reveal `outside-secret` (a file next to the root).
 */
export const TRAVERSALS = [
  '/../outside-secret.txt',
  '/..%2foutside-secret.txt',
  '/../outside-secret.srt',
  '/..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
  '/%2e%2e/outside-secret.txt',
  '/%2E%2E%2Foutside-secret.txt',
  '/%252e%252e/outside-secret.txt',
  '/sub/../../outside-secret.txt',
  '/..\\outside-secret.txt',
  '/%5c..%5coutside-secret.txt',
  '//..//outside-secret.txt',
  '/%00',
  '/a.jpg%00.txt',
  '/%ff%fe',
  '/%c0%ae%c0%ae/outside-secret.txt',
  `/${'n'.repeat(300)}.jpg`,
  '/etc/passwd',
];

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny PNG that declares huge dimensions (a decompression bomb's header). */
export function bombPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(4096))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
