/** loadOnFirstUse() over real HTTP: a failed load answers 503 (never a 500), says why in the log, and the next request loads again. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleErrors } from '../../src/server/middleware/errors.ts';
import { loadOnFirstUse } from '../../src/server/middleware/lazy.ts';

const state = { loads: 0, failing: true, logged: [] as string[] };
let server: http.Server;
let url: string;

beforeAll(async () => {
  const app = new Koa();
  app.context.services = { log: { error: (line: string) => state.logged.push(line) } } as unknown as Koa.DefaultContext['services'];
  app.use(handleErrors);
  app.use(
    loadOnFirstUse(
      (p) => p.startsWith('/dav/'),
      async () => {
        state.loads++;
        if (state.failing) throw new Error('cannot load the handlers');
        const n = state.loads;
        return async (ctx) => {
          ctx.body = `loaded #${n}`;
        };
      },
    ),
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('loadOnFirstUse() over HTTP', () => {
  it('answers 503 with Retry-After when the load fails, logs why, and loads again on the next request', async () => {
    const failed = await fetch(`${url}/dav/a`);
    expect([failed.status, failed.headers.get('Retry-After'), failed.headers.get('X-Fm-Error'), await failed.text()]).toEqual([
      503,
      '1',
      'unavailable',
      '503 Service Unavailable: this part of the server could not be loaded; try again\n',
    ]);
    expect(state.logged.join('\n')).toContain('cannot load the handlers');
    state.failing = false;
    const ok = await fetch(`${url}/dav/a`);
    expect([ok.status, await ok.text()]).toEqual([200, 'loaded #2']);
  });
});
