/**
 * GET /api/events/{path}: a live listing of a folder as Server-Sent Events (docs/api.md).
 * Answered like the listing (401/403/404 before the stream starts); then `ready`, batches of
 * `change` and `reset`, and a comment line every few seconds, which keeps proxies from closing
 * the stream and re-checks the session: an expired or revoked session ends it.
 */
import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import { BadRequestError } from '../../errors.ts';
import type { LiveEventName } from '../../api/live.ts';
import { FolderStream } from '../../services/live/folder-stream.ts';
import { authenticate, resolveUser } from '../middleware/auth.ts';
import { pathAfter, userAccess } from '../files-request.ts';
import { sseWriter } from '../sse.ts';
import type { FmContext, FmRouter } from '../types.ts';

const PREFIX = '/api/events';
/** Heartbeat and session check period, ms. */
const HEARTBEAT_MS = 5000;

async function openEvents(ctx: FmContext): Promise<void> {
  const { gate, live } = ctx.services;
  const access = await userAccess(ctx);
  const target = await gate.resolve(access, pathAfter(ctx, PREFIX).path, 'read');
  if (!target.isDir) throw new BadRequestError('live listings are for folders');

  const body = new PassThrough();
  let heartbeat: NodeJS.Timeout | undefined;
  // A client that stops reading is let go (it reconnects and refetches) rather than buffered for.
  const send: (event: LiveEventName, data: unknown) => void = sseWriter(body, () => {
    end();
    ctx.res.destroy();
  });
  const stream = new FolderStream(gate, target, send);
  const end = (): void => {
    clearInterval(heartbeat);
    stream.close();
    unsubscribe();
    body.end();
  };
  const unsubscribe = live.subscribe(ctx.state.user!.id, target.real, stream, end);
  heartbeat = setInterval(() => {
    if (!body.writableEnded) body.write(': keep-alive\n\n');
    resolveUser(ctx).catch(end);
  }, HEARTBEAT_MS);
  ctx.res.once('close', end);

  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  // nginx would otherwise hold events back in its buffer.
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = body;
  send('ready', {});
}

export function eventsRouter(): FmRouter {
  const router: FmRouter = new Router();
  router.get(PREFIX, authenticate, openEvents);
  router.get(`${PREFIX}/{*path}`, authenticate, openEvents);
  return router;
}
