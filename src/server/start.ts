/** startServer: the one way to run fm's HTTP server, used by `fm serve` and the tests. */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createApp, type AppOptions } from './app.ts';
import type { Services } from '../services/index.ts';
import { attachCommandRunner } from './routes/command.ts';

export interface StartOptions extends AppOptions {
  address: string;
  port: number;
  cert?: string;
  key?: string;
  /** Called with the raw server before it listens (the WebSocket runner attaches here). */
  onServer?: (server: http.Server) => void;
}

export interface RunningServer {
  url: string;
  server: http.Server;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then closes the rest. */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(services: Services, opts: StartOptions): Promise<RunningServer> {
  const app = createApp(services, opts);
  const handler = app.callback();
  const server: http.Server =
    opts.cert && opts.key
      ? https.createServer({ cert: fs.readFileSync(opts.cert), key: fs.readFileSync(opts.key) }, handler)
      : http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  // Large uploads may take long; never cut an active request on a timer.
  server.requestTimeout = 0;
  server.headersTimeout = 60_000;
  const runner = attachCommandRunner(server, app, services, opts.baseURL);
  // While closing, answers carry `Connection: close`, so keep-alive clients let go as soon as
  // their in-flight request is done instead of holding the process until the grace period.
  let closing = false;
  const active = new Set<http.ServerResponse>();
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (closing && !res.headersSent) res.setHeader('Connection', 'close');
    active.add(res);
    res.once('close', () => {
      active.delete(res);
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
