/** startServer: the one way to run fm's HTTP server, used by `fm serve` and the tests. */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { createApp, type AppOptions } from './app.ts';
import type { Services } from '../services/index.ts';
import { attachCommandRunner } from './routes/command.ts';
import { allowedHosts, type HostCheck } from './hosts.ts';
import { InFlight } from './in-flight.ts';
import { errorBody } from './middleware/errors.ts';

export { allowedHosts, type HostCheck } from './hosts.ts';

export interface StartOptions extends AppOptions {
  address: string;
  port: number;
  cert?: string;
  key?: string;
  /** Called with the raw server before it listens (the WebSocket runner attaches here). */
  onServer?: (server: http.Server) => void;
  /** Host names served besides the listen address and localhost (`--allowed-hosts`; `*` = any). */
  allowedHosts?: string[];
}

export interface RunningServer {
  url: string;
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(services: Services, opts: StartOptions): Promise<RunningServer> {
  const hosts = allowedHosts(opts.address, opts.allowedHosts ?? []);
  const app = createApp(services, { ...opts, hosts });
  const handler = app.callback();
  // node:https (with tls) only for --cert: ~0.5 ms of every other start before "listening on".
  const server: http.Server =
    opts.cert && opts.key
      ? (await import('node:https')).createServer({ cert: fs.readFileSync(opts.cert), key: fs.readFileSync(opts.key) }, handler)
      : http.createServer(handler);
  refuseForeignUpgrades(server, hosts);
  server.keepAliveTimeout = 65_000;
  // Large uploads may take long; never cut an active request on a timer.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const runner = attachCommandRunner(server, app, services, opts.baseURL);
  // While closing, answers carry `Connection: close`, so keep-alive clients let go as soon as
  // their in-flight request is done instead of holding the process until the grace period.
  let closing = false;
  const active = new InFlight<http.ServerResponse>();
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (closing && !res.headersSent) res.setHeader('Connection', 'close');
    const slot = active.hold(res);
    res.once('close', () => {
      active.release(slot);
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  opts.onServer?.(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${opts.cert && opts.key ? 'https' : 'http'}://${host}:${addr.port}${opts.baseURL}`;
  return {
    url,
    server,
    async close(graceMs = 10_000) {
      closing = true;
      for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
      await runner.close();
      services.live.endAll();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), graceMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}

/**
 * WebSocket upgrades bypass Koa, so the Host check runs here, at the http-server level: an
 * upgrade with a foreign Host is answered 421 before any 'upgrade' listener (the command runner
 * or a later module) sees its socket. Wrapping emit, rather than adding a listener, keeps the
 * refused socket from every listener and leaves their listener count alone.
 */
export function refuseForeignUpgrades(server: http.Server, hosts: HostCheck): void {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: unknown[]) => boolean;
  server.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'upgrade') {
      const [req, socket] = args as [http.IncomingMessage, Duplex];
      const refusal = hosts.refusal(req.headers.host);
      if (refusal) {
        answerSocket(socket, 421, refusal);
        return true;
      }
    }
    return emit(event, ...args);
  }) as typeof server.emit;
}

/** Answers a raw socket with a plain HTTP error and closes it. */
function answerSocket(socket: Duplex, status: number, message: string): void {
  socket.on('error', () => socket.destroy());
  const body = errorBody(status, message);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
