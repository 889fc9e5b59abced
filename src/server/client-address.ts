/**
 * Where a request comes from. Everything that needs the client's address (the request log,
 * throttling, share locks) reads `clientAddress(ctx)`, or `ctx.ip`, which the edge sets to the
 * same value; proxy authentication alone needs the socket's peer (`peerAddress`).
 */
import { forwardedClient, plainAddress } from '../services/addresses.ts';
import type { FmContext, FmMiddleware } from './types.ts';

/** The socket's peer address (IPv4-mapped addresses as IPv4). */
export function peerAddress(ctx: FmContext): string {
  return plainAddress(ctx.req.socket.remoteAddress ?? '');
}

/** The client's address: the peer, or the address a trusted proxy forwarded (X-Forwarded-For, Forwarded). */
export function clientAddress(ctx: FmContext): string {
  return forwardedClient(peerAddress(ctx), ctx.headers, (ip) => ctx.services.auth.isTrustedProxy(ip));
}

/** Makes `ctx.ip` the client address for everything after it. */
export const useClientAddress: FmMiddleware = async (ctx, next) => {
  ctx.request.ip = clientAddress(ctx);
  await next();
};
