/**
 * Starts a real `fm serve` (the built bin/fm.js) on port 0 with a temporary root and database,
 * and gives typed helpers to call it. Every integration test goes through this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FM_BIN = path.join(PROJECT_ROOT, 'bin', 'fm.js');

export interface FmServer {
  url: string;
  /** Folder served as the root (a temp folder unless given). */
  root: string;
  /** Temp folder holding the database and anything else the test wants outside the root. */
  home: string;
  dbFile: string;
  adminPassword: string;
  /** Everything the server printed so far. */
  output(): string;
  child: ChildProcess;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (simulates a crash). */
  kill(): Promise<void>;
}

export interface StartOptions {
  root?: string;
  home?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Keep the temp folders after stop (for restart tests). */
  keep?: boolean;
}

const started = new Set<FmServer>();
process.on('exit', () => {
  for (const s of started) s.child.kill('SIGKILL');
});

export function tempDir(prefix = 'fm-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Runs `fm serve` and waits for its `listening on` line. */
export async function startFm(opts: StartOptions = {}): Promise<FmServer> {
  const home = opts.home ?? tempDir();
  const root = opts.root ?? path.join(home, 'root');
  fs.mkdirSync(root, { recursive: true });
  const dbFile = path.join(home, 'fm.db');
  const child = spawn(process.execPath, [FM_BIN, 'serve', root, '--port', '0', '--database', dbFile, ...(opts.args ?? [])], {
    env: { ...process.env, XDG_DATA_HOME: path.join(home, 'data'), ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fm serve did not start:\n${out}`)), 20_000);
    const onData = () => {
      const m = /listening on (\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fm serve exited with ${code}:\n${out}`));
    });
  });
  const adminPassword = /password: (\S+)/.exec(out)?.[1] ?? '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const server: FmServer = {
    url,
    root,
    home,
    dbFile,
    adminPassword,
    child,
    output: () => out,
    async stop() {
      started.delete(server);
      if (child.exitCode === null) child.kill('SIGTERM');
      const code = await exited;
      if (!opts.keep && !opts.home) fs.rmSync(home, { recursive: true, force: true });
      return code;
    },
    async kill() {
      started.delete(server);
      child.kill('SIGKILL');
      await exited;
    },
  };
  started.add(server);
  return server;
}

/** A small typed client over fetch for one server. */
export class Client {
  token = '';

  constructor(readonly base: string) {}

  async login(username: string, password: string): Promise<string> {
    const res = await fetch(`${this.base}/api/login`, { method: 'POST', body: JSON.stringify({ username, password }) });
    if (res.status !== 200) throw new Error(`login ${username} failed: ${res.status} ${await res.text()}`);
    this.token = await res.text();
    return this.token;
  }

  fetch(pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.token && !headers.has('X-Auth')) headers.set('X-Auth', this.token);
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers.set('Content-Type', 'application/json');
    }
    return fetch(`${this.base}${pathname}`, { ...init, headers, body });
  }

  async json<T = unknown>(pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
    const res = await this.fetch(pathname, init);
    if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }
}

/** Logs in as the admin created at first start. */
export async function adminClient(server: FmServer): Promise<Client> {
  const c = new Client(server.url);
  await c.login('admin', server.adminPassword);
  return c;
}

/** Creates a user through the API (as admin) and returns a client logged in as that user. */
export async function createUser(
  admin: Client,
  server: FmServer,
  username: string,
  data: Record<string, unknown> = {},
  password = 'a-long-test-password-1',
): Promise<{ client: Client; id: number; password: string }> {
  const res = await admin.fetch('/api/users', {
    method: 'POST',
    json: { what: 'user', which: [], current_password: server.adminPassword, data: { username, password, ...data } },
  });
  if (res.status !== 201) throw new Error(`create user ${username}: ${res.status} ${await res.text()}`);
  const id = Number(res.headers.get('Location')!.split('/').pop());
  const client = new Client(server.url);
  await client.login(username, password);
  return { client, id, password };
}
