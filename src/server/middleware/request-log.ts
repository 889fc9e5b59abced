/** One line per request: client address (ctx.ip, which the edge sets from trusted proxies), method, path (never the query, which may hold secrets), status, time. */
import type { FmMiddleware } from '../types.ts';

let counter = 0;

export function requestLog(write: ((line: string) => void) | undefined): FmMiddleware {
  return async (ctx, next) => {
    ctx.state.requestId = (++counter).toString(36);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      if (write) {
        const log = () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          write(`${new Date().toISOString()} ${ctx.ip} ${ctx.method} ${ctx.path} ${ctx.status} ${ms.toFixed(1)}ms`);
        };
        // Log when the response is done, so streamed bodies are timed to the end.
        if (ctx.res.writableFinished || ctx.respond === false) log();
        else ctx.res.once('close', log);
      }
    }
  };
}
