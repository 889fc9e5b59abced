/**
 * Open command sockets follow the database: while any is open, a poll closes those whose user
 * lost the right to run commands (exec turned off, execute removed, user deleted, session
 * revoked by a password change), stopping their runs. The CLI is another process, so nothing
 * tells the server; the poll reads afresh every RECHECK_MS.
 */
import type { WebSocket } from 'ws';
import { FmError } from '../errors.ts';
import type { Services } from '../services/index.ts';
import type { RunningProcess } from '../services/exec/index.ts';
import { requestSettings, resolveUser } from './middleware/auth.ts';
import { refuse } from './command-frames.ts';
import type { FmContext } from './types.ts';

/** How often open sockets are checked against the database. */
const RECHECK_MS = 250;

export interface Runs {
  all: Set<RunningProcess>;
  /** Open sockets, checked every RECHECK_MS while there are any. */
  sessions: Set<Session>;
  recheck?: ReturnType<typeof setInterval>;
}

export interface Session {
  ws: WebSocket;
  ctx: FmContext;
  userId: number;
  /** Stops the socket's run, once it has one. */
  stop?: () => void;
}

/**
 * Why this socket's user may no longer run commands, read afresh from the database (settings,
 * the user, their session), or undefined when they still may.
 */
export async function accessWithdrawn(ctx: FmContext, services: Services, userId: number): Promise<string | undefined> {
  await services.repos.db.refresh();
  ctx.state.settings = undefined;
  const settings = await requestSettings(ctx);
  if (!settings.enableExec) return 'command execution is disabled on this server';
  try {
    await resolveUser(ctx);
  } catch (err) {
    if (err instanceof FmError) return `you are no longer signed in (${err.message})`;
    throw err;
  }
  const user = ctx.state.user!;
  if (user.id !== userId) return 'you are no longer signed in (user no longer exists)';
  if (!user.perm.admin && !user.perm.execute) return 'execute permission required';
  return undefined;
}

/** Registers an open socket for the periodic check, which runs while any socket is open. */
export function watchSession(runs: Runs, services: Services, s: Session): void {
  runs.sessions.add(s);
  s.ws.on('close', () => {
    runs.sessions.delete(s);
    if (runs.sessions.size === 0) {
      clearInterval(runs.recheck);
      runs.recheck = undefined;
    }
  });
  if (runs.recheck) return;
  let busy = false;
  runs.recheck = setInterval(() => {
    if (busy) return;
    busy = true;
    void (async () => {
      for (const open of [...runs.sessions]) {
        if (open.ws.readyState !== open.ws.OPEN) continue;
        const why = await accessWithdrawn(open.ctx, services, open.userId);
        if (why) {
          services.log.info(`command runner (${open.ctx.state.user?.username ?? open.userId}): closed: ${why}`);
          refuse(open.ws, why);
          open.stop?.();
        }
      }
    })()
      .catch((err: Error) => services.log.error(`command runner: ${err.message}`))
      .finally(() => (busy = false));
  }, RECHECK_MS);
  runs.recheck.unref();
}
