/** `fm serve [root]`: opens the database, sets up a new instance, and serves the API and the UI. */
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { UsageError } from '../../errors.ts';
import { action, databasePath, ExitError } from '../run.ts';
import { packageRoot } from '../../paths.ts';
import { VERSION } from '../../version.ts';
// Static: a few lines with no imports, where a dynamic import would cost a chunk of its own.
import { holdUntil } from '../../server/middleware/hold.ts';
import { announceStarted } from '../../boot/started.ts';
import type { Logger } from '../../services/context.ts';
import type { Services } from '../../services/index.ts';

export interface ServeOptions {
  root?: string;
  address: string;
  port: string;
  baseurl: string;
  cert?: string;
  key?: string;
  log: string;
  noauth?: boolean;
  tokenExpiration: string;
  authHeader?: string;
  trustedProxies: string;
  allowedHosts: string;
  signupLimit: string;
  index: boolean;
  webdav: boolean;
  webdavPrefix: string;
  cacheDir?: string;
  execTimeout: string;
  execMaxOutput: string;
  execUnsandboxed?: boolean;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('serve the web UI and the API on a folder')
    .argument('[root]', 'folder to serve (default: the current folder)')
    .addOption(new Option('-r, --root <dir>', 'folder to serve').env('FM_ROOT'))
    .addOption(new Option('-a, --address <address>', 'address to listen on').env('FM_ADDRESS').default('127.0.0.1'))
    .addOption(new Option('-p, --port <port>', 'port to listen on (0 picks a free port)').env('FM_PORT').default('8080'))
    .addOption(new Option('-b, --baseurl <path>', 'serve under this URL prefix, e.g. /fm').env('FM_BASEURL').default(''))
    .addOption(new Option('-t, --cert <file>', 'TLS certificate (PEM) for HTTPS').env('FM_CERT'))
    .addOption(new Option('-k, --key <file>', 'TLS private key (PEM) for HTTPS').env('FM_KEY'))
    .addOption(new Option('-l, --log <target>', 'request log: stdout, off, or a file').env('FM_LOG').default('stdout'))
    .addOption(new Option('--noauth', 'no login: every request acts as user 1').env('FM_NOAUTH'))
    .addOption(new Option('--token-expiration <duration>', 'login token lifetime').env('FM_TOKEN_EXPIRATION').default('2h'))
    .addOption(new Option('--auth-header <name>', 'proxy auth: the header that names the user').env('FM_AUTH_HEADER'))
    .addOption(
      new Option('--trusted-proxies <list>', 'comma-separated addresses/CIDRs allowed to send the auth header and X-Forwarded-For')
        .env('FM_TRUSTED_PROXIES')
        .default('127.0.0.0/8,::1'),
    )
    .addOption(
      new Option('--allowed-hosts <list>', 'comma-separated host names the server answers to besides its address and localhost (* = any)')
        .env('FM_ALLOWED_HOSTS')
        .default(''),
    )
    .addOption(new Option('--signup-limit <n>', 'sign-ups accepted per client address and hour (0 = no limit)').env('FM_SIGNUP_LIMIT').default('10'))
    .addOption(new Option('--cache-dir <dir>', 'cache folder for previews and the search index (default: <data folder>/cache)').env('FM_CACHE_DIR'))
    .addOption(new Option('--no-index', 'do not build the search index (search walks the tree)').env('FM_NO_INDEX'))
    .addOption(new Option('--webdav-prefix <path>', 'URL path where WebDAV answers').env('FM_WEBDAV_PREFIX').default('/dav'))
    .addOption(new Option('--no-webdav', 'do not answer WebDAV').env('FM_NO_WEBDAV'))
    .addOption(new Option('--exec-timeout <duration>', 'time limit of each command run and hook').env('FM_EXEC_TIMEOUT').default('10m'))
    .addOption(new Option('--exec-max-output <bytes>', 'output limit of each command run and hook (e.g. 10M)').env('FM_EXEC_MAX_OUTPUT').default('10M'))
    .addOption(
      new Option('--exec-unsandboxed', 'DANGEROUS: run commands and hooks without the bubblewrap sandbox (they can then read anything fm can)').env(
        'FM_EXEC_UNSANDBOXED',
      ),
    )
    .addHelpText(
      'after',
      '\nExamples:\n  fm serve                      serve the current folder on http://127.0.0.1:8080\n  fm serve /srv/files -a 0.0.0.0 -p 80\n  FM_DATABASE=/var/lib/fm/fm.db fm serve --baseurl /fm',
    )
    .action(
      action(async (rootArg: string | undefined, opts: ServeOptions, cmd: Command) => {
        await serve(rootArg, opts, cmd);
      }),
    );
}

async function serve(rootArg: string | undefined, opts: ServeOptions, cmd: Command): Promise<void> {
  const { openDatabase } = await import('../../storage/db.ts');
  const { createServices, followTheDisk, shutdownServices } = await import('../../services/index.ts');
  const { createAdmin, ensureSettings, planAdmin } = await import('../../services/setup.ts');
  const { provisioningProblem } = await import('../../services/settings.ts');
  const { startServer } = await import('../../server/start.ts');
  const { loadWebBundle } = await import('../../server/routes/static.ts');
  const { parseDuration } = await import('../../services/duration.ts');
  const { parseSize } = await import('../../api/size.ts');
  const { buildBlockList } = await import('../../services/addresses.ts');

  // Precedence: --root, then the [root] argument, then FM_ROOT, then the current folder.
  const rootInput = (cmd.getOptionValueSource('root') === 'cli' ? opts.root : undefined) ?? rootArg ?? opts.root ?? '.';
  const root = path.resolve(rootInput);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new UsageError(`root ${root} is not a folder`);
  const realRoot = fs.realpathSync(root);
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`invalid port "${opts.port}"`);
  const baseURL = normalizeBaseURL(opts.baseurl);
  const webdavPrefix = opts.webdav ? normalizeWebdavPrefix(opts.webdavPrefix) : undefined;
  if ((opts.cert && !opts.key) || (!opts.cert && opts.key)) throw new UsageError('--cert and --key go together');
  // commander turns a boolean flag on whenever its variable is set, even to "false".
  const noauth = cmd.getOptionValueSource('noauth') === 'env' ? envFlag('FM_NOAUTH') : Boolean(opts.noauth);
  const unsandboxed = cmd.getOptionValueSource('execUnsandboxed') === 'env' ? envFlag('FM_EXEC_UNSANDBOXED') : Boolean(opts.execUnsandboxed);
  const trustedProxies = opts.trustedProxies
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  try {
    buildBlockList(trustedProxies);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const allowedHosts = opts.allowedHosts
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const signupLimit = Number(opts.signupLimit);
  if (!/^\s*\d+\s*$/.test(opts.signupLimit) || !Number.isSafeInteger(signupLimit)) {
    throw new UsageError(`invalid --signup-limit "${opts.signupLimit}" (a whole number of sign-ups per address and hour; 0 = no limit)`);
  }
  let tokenLifetime: number;
  let execTimeout: number;
  let execMaxOutput: number;
  try {
    tokenLifetime = parseDuration(opts.tokenExpiration);
    execTimeout = parseDuration(opts.execTimeout);
    execMaxOutput = parseSize(opts.execMaxOutput);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (execMaxOutput < 1) throw new UsageError(`size "${opts.execMaxOutput}" must be at least one byte`);

  // Signal handlers go in first: Node only honours a handler from the next turn of the event
  // loop, so one registered after `listening on` could miss a SIGTERM sent right after it.
  let stopNow: ((signal: string) => void) | undefined;
  let pendingSignal: string | undefined;
  const onSignal = (signal: string) => {
    if (stopNow) stopNow(signal);
    else pendingSignal ??= signal;
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  const out = (line: string) => process.stdout.write(`${line}\n`);
  const log: Logger = {
    info: (m) => out(m),
    warn: (m) => process.stderr.write(`warning: ${m}\n`),
    error: (m) => process.stderr.write(`error: ${m}\n`),
  };
  const requestLog = openRequestLog(opts.log);

  const dbFile = databasePath(cmd);
  const db = await openDatabase(dbFile);
  out(`fm ${VERSION}`);
  out(`database: ${db.file}`);
  out(`root: ${realRoot}`);
  const services = createServices(db, {
    root: realRoot,
    tokenLifetime,
    auth: {
      noauth,
      authHeader: opts.authHeader,
      trustedProxies,
      signupLimit,
    },
    log,
    dataDir: db.dataDir,
    cacheDir: opts.cacheDir ? path.resolve(opts.cacheDir) : undefined,
    exec: { timeoutMs: execTimeout * 1000, maxOutputBytes: execMaxOutput },
    sandbox: { unsandboxed },
  });
  const settings = await ensureSettings(services.repos);
  await checkSandbox(services, log);
  const admin = await planAdmin(services.repos);
  // Hashing the new admin's password (bcrypt) was a fifth of a first start's CPU: it runs once the
  // server listens (bcryptjs works in one blocking stretch of ~60 ms, which started earlier could
  // land before the "listening on" line), and every request waits for the stored user
  // (holdUntil) so none sees it missing.
  let listening: () => void = () => {};
  const adminStored = admin
    ? new Promise<void>((resolve) => {
        listening = resolve;
      }).then(() => createAdmin(services.users, admin))
    : undefined;
  adminStored?.catch(() => {}); // awaited below, after listening; this only keeps an early failure from being "unhandled"
  if (admin) out(`created user "${admin.username}" with password: ${admin.password}  (shown once; change it after logging in)`);
  const provisioning = provisioningProblem(settings, services.auth.method(settings));
  if (provisioning) log.warn(provisioning);

  const web = loadWebBundle(path.join(packageRoot(), 'dist', 'web'));
  const running = await startServer(services, {
    address: opts.address,
    port,
    baseURL,
    version: VERSION,
    web,
    cert: opts.cert,
    key: opts.key,
    allowedHosts,
    requestLog: requestLog?.write,
    webdavPrefix,
    before: adminStored ? [holdUntil(adminStored)] : undefined,
  });
  out(`listening on ${running.url}`);
  listening();
  announceStarted();
  if (adminStored) {
    try {
      await adminStored;
    } catch (err) {
      await running.close();
      throw err;
    }
  }
  // Modules kept out of the start-up path, loaded now so that the first login does not wait for them.
  void import('../../server/middleware/body.ts').then((m) => m.loadKoaBody()).catch(() => {});
  services.uploads.start();
  services.trash.start();
  // The index builds in the background: the server answers at once, search walks until it is ready.
  followTheDisk(services, opts.index);

  let stopping = false;
  stopNow = (signal: string) => {
    // Repeats are ignored: wrappers such as `npm start` forward a Ctrl-C that the process
    // group already delivered, and that must not cut the requests in flight.
    if (stopping) return;
    stopping = true;
    out(`received ${signal}, shutting down`);
    void (async () => {
      await running.close();
      await shutdownServices(services);
      await db.close();
      await requestLog?.close();
      process.exit(0);
    })();
  };
  if (pendingSignal) stopNow(pendingSignal);
}

/**
 * Commands and hooks run only in the bubblewrap sandbox: with exec (or the auth hook) on and no
 * working bwrap, fm refuses to start unless the admin chose --exec-unsandboxed, which is
 * announced loudly.
 */
async function checkSandbox(services: Services, log: Logger): Promise<void> {
  const settings = await services.repos.settings.get();
  const sandbox = services.exec.sandbox;
  const needed = settings.enableExec || settings.authMethod === 'hook';
  if (sandbox.unsandboxed) {
    log.warn('--exec-unsandboxed: commands and hooks run WITHOUT a sandbox, with every right fm has (see docs/exec.md)');
    return;
  }
  if (!needed) return;
  const refusal = await sandbox.refusal();
  if (refusal)
    throw new ExitError(
      1,
      `${settings.enableExec ? 'command execution is on' : 'the auth method is hook'}, but ${refusal}; or turn it off (${settings.enableExec ? 'fm config set --no-exec' : 'fm config set --auth-method json'})`,
    );
  services.log.info(`exec: sandboxed by ${sandbox.bwrap} (process limit: ${await sandbox.processLimitMode()})`);
}

/** A boolean environment variable: true/1/yes/on or false/0/no/off/empty; anything else is a usage error. */
function envFlag(name: string): boolean {
  const raw = process.env[name] ?? '';
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  throw new UsageError(`${name} must be true or false, not "${raw}"`);
}

export function normalizeBaseURL(raw: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  if (!trimmed) return '';
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed)) throw new UsageError(`invalid base URL "${raw}" (use a path such as /fm)`);
  return trimmed;
}

/** `--webdav-prefix`: a path of its own, not one the API, the bundle or the pages use. */
export function normalizeWebdavPrefix(raw: string): string {
  const prefix = raw.trim().replace(/\/+$/, '');
  if (!/^\/[A-Za-z0-9._~\-/]+$/.test(prefix)) throw new UsageError(`invalid WebDAV prefix "${raw}" (use a path such as /dav)`);
  const first = prefix.split('/')[1].toLowerCase();
  if (['api', 'static', 'health', 'files', 'settings', 'share', 'login', '403', '404', '500'].includes(first)) {
    throw new UsageError(`the WebDAV prefix "${raw}" is a path fm already uses`);
  }
  return prefix;
}

interface RequestLogTarget {
  write: (line: string) => void;
  /** Flushes and closes the log. */
  close: () => Promise<void>;
}

function openRequestLog(target: string): RequestLogTarget | undefined {
  if (target === 'off' || target === 'false' || target === 'none') return undefined;
  if (target === 'stdout' || target === '') return { write: (l) => process.stdout.write(`${l}\n`), close: async () => {} };
  if (target === 'stderr') return { write: (l) => process.stderr.write(`${l}\n`), close: async () => {} };
  fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
  // Opened synchronously so that a log file that cannot be written stops fm at start-up.
  const fd = fs.openSync(target, 'a', 0o640);
  const stream = fs.createWriteStream(target, { fd });
  return { write: (l) => stream.write(`${l}\n`), close: () => new Promise<void>((resolve) => stream.end(resolve)) };
}
