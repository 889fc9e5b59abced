/**
 * Starts fm in this process, from src/, on port 0 with a temporary root and database, and gives
 * typed helpers to call it. Integration and browser tests go through this; the few that are
 * about the `fm serve` process itself use spawnFm (spawn.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import type { ServeOptions as ServeFlags } from '../../src/cli/commands/serve.ts';
import type { DiskSpace } from '../../src/services/uploads/disk.ts';
import type { UploadSyncOptions } from '../../src/services/uploads/staging.ts';
import { testDatabase } from './postgres.ts';

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
  /** Everything the server printed so far (start-up lines, warnings, errors, the request log). */
  output(): string;
  /** The process serving (this one for an in-process server): its children and open files. */
  pid: number;
  /** Stops the server and waits until it is closed; returns the exit code (0 in process). */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  root?: string;
  home?: string;
  /** `fm serve` flags, parsed by fm's own command definition. */
  args?: string[];
  /** Keep the temp folders after stop (for restart tests). */
  keep?: boolean;
  /** Free space the upload service sees (default: statfs of the real disk). */
  diskSpace?: DiskSpace;
  /** Upload durability: the boot id the server believes in (a reboot is another one), the bytes between fdatasyncs. */
  uploadSync?: UploadSyncOptions;
  /** The test is about SQLite's own files: `<home>/fm.db` even when FM_TEST_DATABASE=postgres. */
  sqlite?: boolean;
}

export function tempDir(prefix = 'fm-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Parses `fm serve` arguments with fm's own command tree, without running the action. */
async function parseServeArgs(argv: string[]): Promise<{ root: string; flags: ServeFlags; cmd: Command }> {
  const { buildProgram } = await import('../../src/cli/index.ts');
  const program = (await buildProgram()).exitOverride();
  const serve = program.commands.find((c) => c.name() === 'serve')!.exitOverride();
  let parsed: { root: string; flags: ServeFlags; cmd: Command } | undefined;
  serve.action((root: string, flags: ServeFlags, cmd: Command) => {
    parsed = { root, flags, cmd };
  });
  await program.parseAsync(['serve', ...argv], { from: 'user' });
  return parsed!;
}

/**
 * Assembles fm as `fm serve` does (src/cli/commands/serve.ts) — database, services, first-start
 * settings and admin, the sandbox check, the web bundle from dist/web, startServer — with every
 * line it would print captured for `output()`. No signal handler is installed; stop() closes the
 * server, the services (their timers and workers) and the database.
 */
export async function startFm(opts: StartOptions = {}): Promise<FmServer> {
  const [
    { openDatabase },
    { createServices, followTheDisk, shutdownServices },
    setup,
    { provisioningProblem },
    { startServer },
    { loadWebBundle },
    { parseDuration },
    { databasePath },
    { VERSION },
    serveCli,
    { parseSize },
  ] = await Promise.all([
    import('../../src/storage/db.ts'),
    import('../../src/services/index.ts'),
    import('../../src/services/setup.ts'),
    import('../../src/services/settings.ts'),
    import('../../src/server/start.ts'),
    import('../../src/server/routes/static.ts'),
    import('../../src/services/duration.ts'),
    import('../../src/cli/run.ts'),
    import('../../src/version.ts'),
    import('../../src/cli/commands/serve.ts'),
    import('../../src/api/size.ts'),
  ]);
  const home = opts.home ?? tempDir();
  const rootDir = opts.root ?? path.join(home, 'root');
  fs.mkdirSync(rootDir, { recursive: true });
  const { root, flags, cmd } = await parseServeArgs([rootDir, '--port', '0', '--database', await testDatabase(home, opts.sqlite), ...(opts.args ?? [])]);
  if (!['stdout', 'off'].includes(flags.log)) throw new Error(`startFm: --log ${flags.log} needs the real process (spawnFm)`);

  let out = '';
  const print = (line: string) => {
    out += `${line}\n`;
  };
  const log = { info: print, warn: (m: string) => print(`warning: ${m}`), error: (m: string) => print(`error: ${m}`) };
  // Node's warnings (e.g. a failed listing worker) went to the process's stderr.
  const onWarning = (w: Error) => print(`(node) ${w.name}: ${w.message}`);
  process.on('warning', onWarning);

  const realRoot = fs.realpathSync(root);
  const db = await openDatabase(databasePath(cmd), { dataDir: home });
  print(`fm ${VERSION}`);
  print(`database: ${db.file}`);
  print(`root: ${realRoot}`);
  const services = createServices(db, {
    root: realRoot,
    tokenLifetime: parseDuration(flags.tokenExpiration),
    auth: {
      noauth: Boolean(flags.noauth),
      authHeader: flags.authHeader,
      trustedProxies: splitList(flags.trustedProxies),
      signupLimit: Number(flags.signupLimit),
    },
    log,
    dataDir: db.dataDir,
    cacheDir: flags.cacheDir ? path.resolve(flags.cacheDir) : undefined,
    exec: { timeoutMs: parseDuration(flags.execTimeout) * 1000, maxOutputBytes: parseSize(flags.execMaxOutput) },
    sandbox: { unsandboxed: Boolean(flags.execUnsandboxed) },
    diskSpace: opts.diskSpace,
    uploadSync: opts.uploadSync,
  });
  const settings = await setup.ensureSettings(services.repos);
  if (services.exec.sandbox.unsandboxed) log.warn('--exec-unsandboxed: commands and hooks run WITHOUT a sandbox, with every right fm has (see docs/exec.md)');
  else if (settings.enableExec || settings.authMethod === 'hook') {
    const refusal = await services.exec.sandbox.refusal();
    if (refusal) throw new Error(`startFm: the sandbox is needed but ${refusal}`);
  }
  const admin = await setup.ensureAdmin(services.repos, services.users);
  if (admin) print(`created user "${admin.username}" with password: ${admin.password}  (shown once; change it after logging in)`);
  const provisioning = provisioningProblem(settings, services.auth.method(settings));
  if (provisioning) log.warn(provisioning);

  const running = await startServer(services, {
    address: flags.address,
    port: 0,
    baseURL: serveCli.normalizeBaseURL(flags.baseurl),
    version: VERSION,
    web: loadWebBundle(path.join(PROJECT_ROOT, 'dist', 'web')),
    cert: flags.cert,
    key: flags.key,
    allowedHosts: splitList(flags.allowedHosts),
    requestLog: flags.log === 'off' ? undefined : print,
    webdavPrefix: flags.webdav ? serveCli.normalizeWebdavPrefix(flags.webdavPrefix) : undefined,
  });
  print(`listening on ${running.url}`);
  services.uploads.start();
  services.trash.start();
  followTheDisk(services, flags.index);

  let stopped: Promise<number> | undefined;
  return {
    url: running.url,
    root: rootDir,
    home,
    dbFile: db.file,
    adminPassword: admin?.password ?? '',
    pid: process.pid,
    output: () => out,
    stop() {
      stopped ??= (async () => {
        await running.close();
        await shutdownServices(services);
        await db.close();
        process.off('warning', onWarning);
        if (!opts.keep && !opts.home) fs.rmSync(home, { recursive: true, force: true });
        return 0;
      })();
      return stopped;
    },
  };
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
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
