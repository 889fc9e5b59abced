/**
 * Helpers for the media, search and listing tests: a server whose root lies outside its data
 * folder, raw HTTP requests that keep `..` and odd bytes, and image fixtures.
 */
import fs from 'node:fs';
import http from 'node:http';
import zlib from 'node:zlib';
import { startFm, tempDir, type FmServer } from '../helpers/server.ts';

/**
 * Starts fm with the root in its own temp folder. (startFm's default root sits inside the data
 * folder, which the gate protects as a whole.) `stop()` removes the root too.
 */
export async function startMediaFm(args: string[] = []): Promise<FmServer> {
  const root = tempDir('fm-media-root-');
  const fm = await startFm({ root, args });
  const stop = fm.stop.bind(fm);
  fm.stop = async () => {
    const code = await stop();
    fs.rmSync(root, { recursive: true, force: true });
    return code;
  };
  return fm;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET with the path sent byte for byte (fetch would normalise `..` and `%2e`). */
export function rawGet(base: string, rawPath: string, token: string): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: rawPath, method: 'GET', headers: { 'X-Auth': token } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Traversal attempts to append after a route prefix (PATH class). Each must answer 400, 403
 * or 404 and never reveal `outside-secret` (a file next to the root).
 */
export const TRAVERSALS = [
  '/../outside-secret.txt',
  '/..%2foutside-secret.txt',
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
