/**
 * WebSocket `GET /api/command/{path}`: the command runner. Protocol (docs/exec.md):
 * the client sends one text frame with the command line; the server sends each output line
 * (stdout and stderr, as they come) as a plain text frame, then one JSON status frame, always
 * the last message: `{"type":"exit","code":N}` (plus `signal`/`reason` when stopped) or
 * `{"type":"refused","message":"..."}`; then it closes (1000 after a run, 1008 after a refusal).
 *
 * Before the upgrade: the Origin must be this server's own (no cross-site WebSocket, GHSA-72wf-
 * hwcq-65h9) and the user must be signed in (`auth` cookie or `X-Auth`): otherwise the HTTP
 * answer is 403 or 401 and no socket opens.
 *
 * The database may change under an open socket (the CLI is another process): the user and the
 * settings are read afresh on the upgrade and before the run, and while sockets are open a poll
 * closes those whose user lost the right to run commands (exec turned off, execute removed,
 * user deleted, session revoked by a password change), stopping their runs.
 */
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { FmError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import { CommandRefusedError, type RunningProcess } from '../../services/exec/index.ts';
import { requestSettings, resolveUser } from '../middleware/auth.ts';
import { exitFrame, rawToString, refuse, refuseUpgrade, sendFinal } from '../command-frames.ts';
import { accessWithdrawn, type Runs, type Session, watchSession } from '../command-sessions.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import type { FmContext } from '../types.ts';
import { sameOrigin } from '../origin.ts';
import { recordCommand } from '../audit.ts';

// The rule moved to ../origin.ts (the HTTP edge applies it too); re-exported for importers.
export { sameOrigin };

const PREFIX = '/api/command';
/** How long a new socket may wait before sending its command line. */
const FIRST_FRAME_MS = 60_000;
/** Output is paused while this much is waiting to be sent to a slow client. */
const HIGH_WATER = 1024 * 1024;
export interface CommandRunner {
  /** Stops every run and closes every socket (server shutdown). */
  close(): Promise<void>;
}

/** Handles WebSocket upgrades on `server` for the command runner. */
export function attachCommandRunner(server: http.Server, app: Koa, services: Services, baseURL: string): CommandRunner {
  // ws is loaded on the first upgrade, not at start-up (most instances never run a command).
  let wss: WebSocketServer | undefined;
  const loadWss = async () => (wss ??= new (await import('ws')).WebSocketServer({ noServer: true, maxPayload: 64 * 1024 }));
  const runs: Runs = { all: new Set(), sessions: new Set() };
  const prefix = `${baseURL}${PREFIX}`;
  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) {
      // Another module may own other upgrade paths; answer only when nobody else listens.
      if (server.listenerCount('upgrade') === 1) refuseUpgrade(socket, 404, '');
      return;
    }
    socket.on('error', () => socket.destroy());
    loadWss()
      .then((server) => handleUpgrade(server, app, services, baseURL, runs, req, socket, head))
      .catch((err) => {
        services.log.error(`command runner: ${(err as Error).message}`);
        refuseUpgrade(socket, 500, '');
      });
  });
  return {
    async close() {
      clearInterval(runs.recheck);
      const stopping = [...runs.all];
      for (const p of stopping) p.stop('cancelled');
      const server = wss;
      for (const ws of server?.clients ?? []) ws.terminate();
      await Promise.all(stopping.map((p) => p.done));
      if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function handleUpgrade(
  wss: WebSocketServer,
  app: Koa,
  services: Services,
  baseURL: string,
  runs: Runs,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  if (!sameOrigin(req.headers.origin, req.headers.host)) {
    refuseUpgrade(socket, 403, 'cross-origin WebSocket refused');
    return;
  }
  // A real Koa context over the upgrade request, so the usual helpers (auth, paths) apply.
  const ctx = app.createContext(req, new http.ServerResponse(req)) as FmContext;
  if (baseURL) ctx.path = ctx.path.slice(baseURL.length) || '/';
  try {
    await services.repos.db.refresh();
    await resolveUser(ctx);
  } catch (err) {
    if (err instanceof FmError) {
      refuseUpgrade(socket, err.status, err.message);
      return;
    }
    throw err;
  }
  wss.handleUpgrade(req, socket, head, (ws) => session(ws, ctx, services, runs));
}

/** One command per socket. */
function session(ws: WebSocket, ctx: FmContext, services: Services, runs: Runs): void {
  const user = ctx.state.user!;
  const timer = setTimeout(() => refuse(ws, 'no command line was sent'), FIRST_FRAME_MS);
  const open: Session = { ws, ctx, userId: user.id };
  watchSession(runs, services, open);
  ws.on('error', () => ws.terminate());
  ws.on('close', () => clearTimeout(timer));
  ws.once('message', (data: RawData, isBinary: boolean) => {
    clearTimeout(timer);
    if (isBinary) {
      refuse(ws, 'send the command line as a text frame');
      return;
    }
    const line = rawToString(data);
    void run(open, services, runs, line).catch((err) => {
      services.log.error(`command runner (${user.username}): ${(err as Error).message}`);
      sendFinal(ws, { type: 'error', message: 'internal error' }, 1011, 'internal error');
    });
  });
}

async function run(open: Session, services: Services, runs: Runs, line: string): Promise<void> {
  const { ws, ctx } = open;
  const user = ctx.state.user!;
  let what = `command ${JSON.stringify(line)} by ${user.username}`;
  let plan;
  let access;
  let settings;
  let folder = '/';
  try {
    folder = pathAfter(ctx, PREFIX).path;
    what += ` in ${folder}`;
    // Re-read: the user or the settings may have changed while the socket waited.
    const withdrawn = await accessWithdrawn(ctx, services, user.id);
    if (withdrawn) throw new CommandRefusedError(withdrawn);
    settings = await requestSettings(ctx);
    access = await userAccess(ctx);
    plan = await services.exec.prepareRun(ctx.state.user!, settings, access, folder, line);
  } catch (err) {
    if (err instanceof CommandRefusedError || err instanceof FmError) {
      services.log.info(`${what}: refused: ${err.message}`);
      refuse(ws, err.message);
      return;
    }
    throw err;
  }
  if (ws.readyState !== ws.OPEN) return;
  let finished: () => void;
  try {
    finished = services.exec.claimRun(user.id);
  } catch (err) {
    if (!(err instanceof CommandRefusedError)) throw err;
    refuse(ws, err.message);
    return;
  }
  const env = services.exec.env(access.rootReal, { PWD: plan.cwd });
  let draining: NodeJS.Timeout | undefined;
  let proc: RunningProcess;
  const started = Date.now();
  try {
    proc = await services.exec.start(
      plan,
      { env, settings, tree: services.exec.userTree(access) },
      {
        line: (text) => {
          if (ws.readyState !== ws.OPEN) return;
          ws.send(text);
          if (!draining && ws.bufferedAmount > HIGH_WATER) {
            proc.pause();
            draining = setInterval(() => {
              if (ws.bufferedAmount < HIGH_WATER / 4 || ws.readyState !== ws.OPEN) {
                clearInterval(draining);
                draining = undefined;
                proc.resume();
              }
            }, 20);
          }
        },
      },
    );
  } catch (err) {
    finished();
    if (!(err instanceof CommandRefusedError)) throw err;
    services.log.info(`${what}: refused: ${err.message}`);
    refuse(ws, err.message);
    return;
  }
  runs.all.add(proc);
  open.stop = () => proc.stop('cancelled');
  if (ws.readyState !== ws.OPEN) proc.stop('cancelled');
  ws.on('close', () => proc.stop('cancelled'));
  const result = await proc.done;
  runs.all.delete(proc);
  finished();
  if (draining) clearInterval(draining);
  services.exec.logResult(what, result);
  recordCommand(ctx, { folder, line, code: result.code, duration: Date.now() - started });
  if (ws.readyState !== ws.OPEN) return;
  if (result.reason === 'time limit' || result.reason === 'output limit' || result.reason === 'process limit') {
    ws.send(`fm: the command was stopped: ${result.reason} reached`);
  }
  if (result.error) ws.send(`fm: the command could not start (${result.error})`);
  sendFinal(ws, exitFrame(result), 1000, `exit ${result.code}`);
}
