/**
 * `fm serve` as a process: start-up errors (exit 1, database untouched), graceful SIGTERM,
 * the request log, FM_* environment variables and HTTPS.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FM_BIN, tempDir } from '../helpers/server.ts';
import { spawnFm, type SpawnedFm } from '../helpers/spawn.ts';
import { runFm } from '../helpers/cli.ts';
import { rawRequest } from '../helpers/http-raw.ts';

const temps: string[] = [];
const children: ChildProcess[] = [];
function temp(): string {
  const d = tempDir('fm-serve-');
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  for (const d of temps) fs.rmSync(d, { recursive: true, force: true });
});

/** Spawns `fm serve` with exactly these args and env (no --port/--database added). */
function spawnServe(args: string[], env: Record<string, string>, cwd?: string): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, [FM_BIN, 'serve', ...args], { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const m = /listening on (\S+)\n/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], out: () => out });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${out}`));
    });
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** Runs SQL on a file with the sqlite3 module (to make fixtures). */
function sql(file: string, statement: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (err) => {
      if (err) return reject(err);
      db.exec(statement, (e) => db.close(() => (e ? reject(e) : resolve())));
    });
  });
}

function expectUntouched(file: string, before: Buffer): void {
  expect(fs.readFileSync(file).equals(before)).toBe(true);
  expect(fs.existsSync(`${file}-wal`)).toBe(false);
  expect(fs.existsSync(`${file}-shm`)).toBe(false);
}

describe('start-up errors', () => {
  it('refuses a file that is not a database: exit 1, one clear line, file untouched', async () => {
    const dir = temp();
    const db = path.join(dir, 'notes.txt');
    fs.writeFileSync(db, 'these are my notes, not a database\n'.repeat(100));
    const before = fs.readFileSync(db);
    const r = await runFm(['serve', dir, '--port', '0', '--database', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/not an fm database/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).not.toMatch(/listening on/);
    expectUntouched(db, before);
  });

  it('refuses a read-only database: exit 1, file untouched', async () => {
    const dir = temp();
    const db = path.join(dir, 'fm.db');
    expect((await runFm(['users', 'add', 'ro-admin', 'ro-admin-password', '--admin', '--database', db])).code).toBe(0);
    fs.chmodSync(db, 0o444);
    const before = fs.readFileSync(db);
    const r = await runFm(['serve', dir, '--port', '0', '--database', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/read-only/);
    expect(fs.readFileSync(db).equals(before)).toBe(true);
  });

  it('refuses the SQLite database of another program: exit 1, file untouched', async () => {
    const dir = temp();
    const db = path.join(dir, 'other.sqlite');
    await sql(db, 'CREATE TABLE invoices(id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5);');
    const before = fs.readFileSync(db);
    const r = await runFm(['serve', dir, '--port', '0', '--database', db]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/another program/);
    expectUntouched(db, before);
  });

  it('exits 1 when the port is taken, and 2 on bad usage', async () => {
    const dir = temp();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as net.AddressInfo).port;
      const taken = await runFm(['serve', dir, '--port', String(port), '--database', path.join(dir, 'a.db')]);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toMatch(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
    const usage = await Promise.all(
      [
        [path.join(dir, 'missing'), '--port', '0'],
        [dir, '--port', 'eighty'],
        [dir, '--port', '0', '--cert', 'x.pem'],
        [dir, '--port', '0', '--token-expiration', 'soon'],
        [dir, '--port', '0', '--baseurl', 'no slash?'],
        [dir, '--port', '0', '--trusted-proxies', '10.0.0.0/99'],
      ].map((args, i) => runFm(['serve', ...args, '--database', path.join(dir, `u${i}.db`)])),
    );
    expect(usage.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2]);
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight request finish, closes the database and exits 0', async () => {
    const fm = await spawnFm({ keep: true });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const url = new URL(fm.url);
    let sent: Promise<number> = Promise.resolve(0);
    const send = (method: string, p: string, body?: string, hold = false) =>
      new Promise<{ status: number; text: string; req: http.ClientRequest }>((resolve, reject) => {
        const req = http.request(
          { host: url.hostname, port: url.port, method, path: p, agent, headers: body ? { 'Content-Length': Buffer.byteLength(body) } : {} },
          (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (d: string) => (text += d));
            res.on('end', () => resolve({ status: res.statusCode!, text, req }));
          },
        );
        req.on('error', reject);
        if (hold && body) {
          // Send the headers and half the body now; the test sends the rest later.
          sent = new Promise((done) => req.write(body.slice(0, 10), () => done(req.socket!.localPort!)));
          held = () => req.end(body.slice(10));
        } else req.end(body);
      });
    let held = () => {};
    // A first request opens the keep-alive connection, so the second one is surely accepted.
    expect((await send('GET', '/health')).status).toBe(200);
    const body = JSON.stringify({ username: 'admin', password: fm.adminPassword });
    const pending = send('POST', '/api/login', body, true);
    // The signal comes once the server has read what was sent: the request is in flight.
    const clientPort = await sent;
    await expect.poll(() => unreadBy(Number(url.port), clientPort)).toBe(0);
    const exited = new Promise<number | null>((resolve) => fm.child.once('exit', resolve));
    fm.child.kill('SIGTERM');
    await expect.poll(() => fm.output()).toMatch(/received SIGTERM/);
    expect(fm.child.exitCode).toBeNull();
    held();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(res.text.split('.')).toHaveLength(3);
    expect(await exited).toBe(0);
    agent.destroy();
    expect(fm.output()).toMatch(/received SIGTERM/);
    // The database was closed cleanly: the WAL was folded back into the file (and removed).
    const wal = `${fm.dbFile}-wal`;
    expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
    fs.rmSync(fm.home, { recursive: true, force: true });
  });

  it('exits 0 on SIGINT too, also when the signal comes twice (npm start forwards Ctrl-C)', async () => {
    const fm = await spawnFm();
    const exited = new Promise<number | null>((resolve) => fm.child.once('exit', resolve));
    fm.child.kill('SIGINT');
    fm.child.kill('SIGINT');
    expect(await exited).toBe(0);
    await fm.stop();
  });
});

describe('request log', () => {
  let fm: SpawnedFm;
  afterEach(async () => {
    await fm?.stop();
  });

  it('logs method, path, status and time, never the query string or a token', async () => {
    fm = await spawnFm();
    const login = await fetch(`${fm.url}/api/login?password=${fm.adminPassword}`, {
      method: 'POST',
      body: JSON.stringify({ username: 'admin', password: fm.adminPassword }),
    });
    const token = await login.text();
    await fetch(`${fm.url}/api/users/1?auth=${token}&secret=hunter2`, { headers: { 'X-Auth': token } });
    await fetch(`${fm.url}/api/users/1`, { headers: { Cookie: `auth=${token}` } });
    await expect.poll(() => fm.output().split(' GET /api/users/1 ')).toHaveLength(3);
    const lines = fm.output().split('\n');
    const users = lines.filter((l) => l.includes(' GET /api/users/1 '));
    expect(users).toHaveLength(2);
    expect(users[0]).toMatch(/GET \/api\/users\/1 200 \d+(\.\d+)?ms$/);
    expect(lines.some((l) => / POST \/api\/login 200 /.test(l))).toBe(true);
    const log = fm.output();
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.split('.')[2]);
    expect(log).not.toContain('hunter2');
    expect(log).not.toContain('?');
    // The admin password appears once: in the first-start line, not in the request log.
    expect(log.split(fm.adminPassword)).toHaveLength(2);
  });

  it('--log off logs no requests', async () => {
    fm = await spawnFm({ args: ['--log', 'off'] });
    await fetch(`${fm.url}/health`);
    // stop() returns once the process has exited and all it printed has been read.
    expect(await fm.stop()).toBe(0);
    expect(fm.output()).not.toMatch(/GET \/health/);
    expect(fm.output()).toMatch(/listening on/);
  });

  it('--log <file> appends request lines to the file, not to stdout', async () => {
    const dir = temp();
    const file = path.join(dir, 'logs', 'access.log');
    fm = await spawnFm({ args: ['--log', file] });
    await fetch(`${fm.url}/health`);
    await fetch(`${fm.url}/api/nothing`);
    expect(await fm.stop()).toBe(0);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/GET \/health 200 /);
    expect(text).toMatch(/GET \/api\/nothing 404 /);
    expect(fm.output()).not.toMatch(/GET \/health/);
  });
});

describe('FM_* environment variables', () => {
  it('reads FM_PORT, FM_DATABASE, FM_ROOT and FM_ADDRESS', async () => {
    const dir = temp();
    const root = path.join(dir, 'served');
    fs.mkdirSync(root);
    const db = path.join(dir, 'env.db');
    const s = await spawnServe([], { FM_PORT: '0', FM_DATABASE: db, FM_ROOT: root, FM_ADDRESS: '127.0.0.1', XDG_DATA_HOME: path.join(dir, 'xdg') });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.url).not.toMatch(/:8080$/);
    expect(s.out()).toContain(`database: ${db}`);
    expect(s.out()).toContain(`root: ${fs.realpathSync(root)}`);
    expect(fs.existsSync(db)).toBe(true);
    expect(fs.existsSync(path.join(dir, 'xdg'))).toBe(false);
    expect(await stop(s.child)).toBe(0);
  });

  it('lets flags and the [root] argument beat the environment', async () => {
    const dir = temp();
    const envRoot = path.join(dir, 'env-root');
    const argRoot = path.join(dir, 'arg-root');
    fs.mkdirSync(envRoot);
    fs.mkdirSync(argRoot);
    const envDb = path.join(dir, 'env.db');
    const flagDb = path.join(dir, 'flag.db');
    const s = await spawnServe([argRoot, '--port', '0', '--database', flagDb], { FM_PORT: '1', FM_DATABASE: envDb, FM_ROOT: envRoot });
    expect(s.out()).toContain(`database: ${flagDb}`);
    expect(s.out()).toContain(`root: ${fs.realpathSync(argRoot)}`);
    expect(fs.existsSync(envDb)).toBe(false);
    expect(await stop(s.child)).toBe(0);
  });

  it('defaults to fm.db in the data folder and the current folder as root', async () => {
    const dir = temp();
    const s = await spawnServe(['--port', '0'], { XDG_DATA_HOME: path.join(dir, 'xdg'), FM_DATABASE: '', FM_ROOT: '' }, dir);
    expect(s.out()).toContain(`database: ${path.join(dir, 'xdg', 'fm', 'fm.db')}`);
    expect(s.out()).toContain(`root: ${fs.realpathSync(dir)}`);
    expect(await stop(s.child)).toBe(0);
  });

  it('reads FM_NOAUTH and FM_TOKEN_EXPIRATION', async () => {
    const dir = temp();
    const s = await spawnServe(['--port', '0', '--database', path.join(dir, 'n.db'), dir], { FM_NOAUTH: 'true', FM_TOKEN_EXPIRATION: '30m' });
    const res = await fetch(`${s.url}/api/login`, { method: 'POST', body: '{}' });
    const claims = JSON.parse(Buffer.from((await res.text()).split('.')[1], 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(1800);
    expect(await stop(s.child)).toBe(0);
  });
});

describe('FM_NOAUTH is read as a boolean (AUTH)', () => {
  it('FM_NOAUTH=false (or 0, or empty) keeps logins required', async () => {
    const dir = temp();
    for (const value of ['false', '0', '']) {
      const s = await spawnServe(['--port', '0', '--database', path.join(dir, 'f.db'), dir], { FM_NOAUTH: value });
      expect((await fetch(`${s.url}/api/users/1`)).status, JSON.stringify(value)).toBe(401);
      expect(await stop(s.child)).toBe(0);
    }
  });

  it('FM_NOAUTH=maybe is a usage error', async () => {
    const dir = temp();
    const r = await runFm(['serve', dir, '--port', '0', '--database', path.join(dir, 'm.db')], { env: { FM_NOAUTH: 'maybe' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FM_NOAUTH/);
  });
});

describe('HTTPS with --cert and --key', () => {
  it('serves over TLS with a self-signed certificate', async () => {
    const dir = temp();
    const cert = path.join(dir, 'cert.pem');
    const key = path.join(dir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
      stdio: 'ignore',
    });
    const fm = await spawnFm({ args: ['--cert', cert, '--key', key] });
    try {
      expect(fm.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const res = await rawRequest(fm.url, { path: '/health' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('{"status":"OK"}');
      const login = await rawRequest(fm.url, { method: 'POST', path: '/api/login', body: JSON.stringify({ username: 'admin', password: fm.adminPassword }) });
      expect(login.status).toBe(200);
    } finally {
      await fm.stop();
    }
  });
});

/**
 * Bytes of a loopback TCP connection the server has not read yet (from /proc/net/tcp: the
 * receive queue of the server's end, local port `serverPort`, peer port `clientPort`).
 */
function unreadBy(serverPort: number, clientPort: number): number | undefined {
  const hex = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(hex(serverPort)) && f[2]?.endsWith(hex(clientPort))) return Number.parseInt(f[4].split(':')[1], 16);
  }
  return undefined;
}
