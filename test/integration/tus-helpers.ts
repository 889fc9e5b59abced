/** Helpers for the tus tests: a server, raw HTTP requests, tus calls. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { adminClient, startFm, tempDir, type Client, type FmServer, type StartOptions } from '../helpers/server.ts';

export const OFFSET_TYPE = 'application/offset+octet-stream';

export interface TusFm {
  fm: FmServer;
  admin: Client;
  /**
   * Where unfinished uploads are kept: the data folder (on the root's file system here), or on
   * PostgreSQL the shared root's `.fm-uploads`, where every instance finds them.
   */
  staging: string;
  /** Stops the server and removes its folders. */
  close(): Promise<void>;
}

/**
 * Starts fm with the root in its own temp folder beside the data folder (so staging goes to
 * `<home>/uploads`) and logs in as admin.
 */
export async function startTusFm(opts: StartOptions = {}): Promise<TusFm> {
  const root = opts.root ?? tempDir('fm-tus-root-');
  const fm = await startFm({ ...opts, root });
  const admin = await adminClient(fm);
  return {
    fm,
    admin,
    staging: onPostgres(fm) ? path.join(fs.realpathSync(root), '.fm-uploads') : path.join(fm.home, 'uploads'),
    async close() {
      await fm.stop();
      if (!opts.root) fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Whether the server keeps its records in PostgreSQL (FM_TEST_DATABASE=postgres). */
export function onPostgres(fm: FmServer): boolean {
  return fm.dbFile.startsWith('postgres');
}

export function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

export async function sha256File(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Deterministic pseudo-random bytes (AES-CTR keystream of the seed: fast, reproducible). */
export function testBytes(size: number, seed = 1): Buffer {
  const key = crypto.createHash('sha256').update(String(seed)).digest().subarray(0, 16);
  const cipher = crypto.createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.alloc(size)), cipher.final()]);
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request through node:http with the path sent byte for byte (no URL normalisation). */
export function raw(base: string, method: string, rawPath: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: rawPath, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** tus calls on one path as one client. */
export class Tus {
  constructor(
    readonly client: Client,
    readonly base: string,
  ) {}

  private headers(extra: Record<string, string>): Record<string, string> {
    return { 'X-Auth': this.client.token, 'Tus-Resumable': '1.0.0', ...extra };
  }

  create(p: string, length: number | string, opts: { override?: boolean; headers?: Record<string, string> } = {}): Promise<RawResponse> {
    const q = opts.override === undefined ? '' : `?override=${opts.override}`;
    return raw(this.base, 'POST', `/api/tus${p}${q}`, this.headers({ 'Upload-Length': String(length), ...opts.headers }));
  }

  head(p: string): Promise<RawResponse> {
    return raw(this.base, 'HEAD', `/api/tus${p}`, this.headers({}));
  }

  patch(p: string, offset: number | string, body: Buffer | string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return raw(this.base, 'PATCH', `/api/tus${p}`, this.headers({ 'Upload-Offset': String(offset), 'Content-Type': OFFSET_TYPE, ...headers }), body);
  }

  remove(p: string): Promise<RawResponse> {
    return raw(this.base, 'DELETE', `/api/tus${p}`, this.headers({}));
  }

  /** Creates and sends `data` in chunks of `chunk` bytes; returns the last response. */
  async upload(p: string, data: Buffer, chunk = data.length || 1, override?: boolean): Promise<RawResponse> {
    const created = await this.create(p, data.length, { override });
    if (created.status !== 201) return created;
    let last = created;
    for (let off = 0; off < data.length; off += chunk) {
      last = await this.patch(p, off, data.subarray(off, off + chunk));
      if (last.status !== 204) return last;
    }
    return last;
  }
}

/**
 * Starts a PATCH and sends `first` bytes of its body, leaving the request open. `finish` sends
 * the rest and returns the response; `cut` destroys the socket mid-body.
 */
export function openPatch(base: string, token: string, p: string, offset: number, total: number, first: Buffer) {
  const url = new URL(base);
  let settled = false;
  const req = http.request({
    host: url.hostname,
    port: url.port,
    method: 'PATCH',
    path: `/api/tus${p}`,
    headers: { 'X-Auth': token, 'Tus-Resumable': '1.0.0', 'Upload-Offset': String(offset), 'Content-Type': OFFSET_TYPE, 'Content-Length': String(total) },
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', (err) => {
      if (!settled) reject(err);
    });
  });
  response.catch(() => {});
  const sent = new Promise<void>((resolve) => req.write(first, () => resolve()));
  return {
    sent,
    async finish(rest: Buffer): Promise<RawResponse> {
      req.end(rest);
      return response;
    },
    cut(): void {
      settled = true;
      req.destroy();
    },
  };
}

/** Polls `check` until it returns true (the server notices a cut socket asynchronously). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Files in the staging folder (empty when it does not exist). */
export function stagedFiles(staging: string): string[] {
  try {
    return fs.readdirSync(staging).sort();
  } catch {
    return [];
  }
}
