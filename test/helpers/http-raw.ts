/**
 * Low-level HTTP for tests that fetch() cannot express: a chosen source address (throttling,
 * trusted proxies), raw paths, self-signed HTTPS, and tokens signed with the server's own key.
 */
import http from 'node:http';
import type { Readable } from 'node:stream';
import https from 'node:https';
import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { openDatabase } from '../../src/storage/db.ts';
import { SettingsRepo } from '../../src/storage/repos/settings.ts';
import { SharesRepo } from '../../src/storage/repos/shares.ts';
import { UsersRepo, type UserRecord } from '../../src/storage/repos/users.ts';
import { tokenUser, ISSUER } from '../../src/services/tokens.ts';
import type { Settings } from '../../src/api/settings.ts';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  /** A list sends the header once per value (duplicated headers). */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer | Readable;
  /** Source address of the connection, e.g. 127.0.0.7 (any 127/8 address reaches the server). */
  localAddress?: string;
}

/** One request over a fresh connection to the server at `base`; the path is sent byte for byte (fetch would normalise `..`). */
export function rawRequest(base: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(base);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const r = mod.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method ?? 'GET',
        path: req.path,
        headers: { Connection: 'close', ...req.headers },
        localAddress: req.localAddress,
        rejectUnauthorized: false,
        insecureHTTPParser: true,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    const body = req.body;
    if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) r.end(body);
    else body.pipe(r);
  });
}

/** POST /api/login from a given source address. */
export function loginFrom(base: string, username: string, password: string, localAddress = '127.0.0.1'): Promise<RawResponse> {
  return rawRequest(base, {
    method: 'POST',
    path: `${new URL(base).pathname.replace(/\/$/, '')}/api/login`,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
    localAddress,
  });
}

/** Opens the server's database from the test process (WAL lets both use it at once). */
export async function withDb<T>(dbFile: string, fn: (repos: { settings: SettingsRepo; users: UsersRepo; shares: SharesRepo }) => Promise<T>): Promise<T> {
  const db = await openDatabase(dbFile);
  try {
    return await fn({ settings: new SettingsRepo(db), users: new UsersRepo(db), shares: new SharesRepo(db) });
  } finally {
    await db.close();
  }
}

/**
 * Polls until `check` holds. A write made beside the server (withDb, patchSettings) reaches a
 * server on PostgreSQL by a notification, a moment later (on SQLite, at its next request): a
 * test waits for its effect before relying on it.
 */
export async function seenByServer(check: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); ) {
    if (Date.now() > deadline) throw new Error(`the server never saw ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Changes stored settings directly (for what the API refuses to change, e.g. the auth method). */
export async function patchSettings(dbFile: string, patch: (s: Settings) => Settings): Promise<void> {
  await withDb(dbFile, async ({ settings }) => {
    await settings.save(patch(await settings.editable()));
  });
}

export interface ForgeOptions {
  /** Seconds relative to now. */
  iat?: number;
  exp?: number;
  /** Sign with this key instead of the server's. */
  key?: Buffer | string;
  algorithm?: jwt.Algorithm;
  omitExp?: boolean;
  omitIat?: boolean;
  extra?: Record<string, unknown>;
}

/** Signs a token for `userId` with the server's key (or another), for expiry and forgery tests. */
export async function forgeToken(dbFile: string, userId: number, opts: ForgeOptions = {}): Promise<string> {
  const { key, user } = await withDb(dbFile, async ({ settings, users }) => ({
    key: await settings.signingKey(),
    user: (await users.get(userId)) as UserRecord,
  }));
  const now = Math.floor(Date.now() / 1000);
  const payload: Record<string, unknown> = {
    user: tokenUser(user),
    sev: user.sessionEpoch,
    uat: user.updatedAt,
    jti: crypto.randomBytes(16).toString('base64url'),
    iss: ISSUER,
    iat: now + (opts.iat ?? 0),
    ...opts.extra,
  };
  if (!opts.omitExp) payload.exp = now + (opts.exp ?? 3600);
  return jwt.sign(payload, opts.key ?? key, { algorithm: opts.algorithm ?? 'HS256', noTimestamp: Boolean(opts.omitIat) });
}

/** An unsigned `alg: none` token with the given payload. */
export function unsignedToken(payload: Record<string, unknown>): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc(payload)}.`;
}

/** The claims of a token (no verification). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary nested claims
export function decodeToken(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}
