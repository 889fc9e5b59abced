/** loadOnFirstUse(): a middleware whose module loads on the first request it serves. */
import { describe, expect, it } from 'vitest';
import { loadOnFirstUse } from '../../src/server/middleware/lazy.ts';
import type { FmContext, FmMiddleware } from '../../src/server/types.ts';

const ctxFor = (path: string) =>
  ({ path, method: 'GET', body: undefined, state: { requestId: 1 }, services: { log: { error: () => {} } } }) as unknown as FmContext;

/** A loader that counts its calls and hands out a middleware answering with the count (or fails while `failing`). */
function counter() {
  const state = { loads: 0, failing: false };
  const load = async (): Promise<FmMiddleware> => {
    state.loads++;
    await new Promise((r) => setImmediate(r));
    if (state.failing) throw new Error('cannot load');
    const n = state.loads;
    return async (ctx) => {
      ctx.body = `loaded #${n}`;
    };
  };
  return { state, load };
}

describe('loadOnFirstUse()', () => {
  it('passes other paths on without loading', async () => {
    const { state, load } = counter();
    const mw = loadOnFirstUse((p) => p.startsWith('/dav/'), load);
    let passed = false;
    await mw(ctxFor('/api/resources/'), async () => {
      passed = true;
    });
    expect([passed, state.loads]).toEqual([true, 0]);
  });

  it('loads once for concurrent first requests and answers each of them', async () => {
    const { state, load } = counter();
    const mw = loadOnFirstUse((p) => p.startsWith('/dav/'), load);
    const ctxs = [ctxFor('/dav/a'), ctxFor('/dav/b'), ctxFor('/dav/c')];
    await Promise.all(ctxs.map((c) => mw(c, async () => {})));
    await mw(ctxs[0], async () => {});
    expect(ctxs.map((c) => c.body)).toEqual(['loaded #1', 'loaded #1', 'loaded #1']);
    expect(state.loads).toBe(1);
  });

  it('answers 503 when the load fails and loads again on the next request', async () => {
    const { state, load } = counter();
    const mw = loadOnFirstUse((p) => p.startsWith('/dav/'), load);
    state.failing = true;
    await expect(mw(ctxFor('/dav/a'), async () => {})).rejects.toMatchObject({ status: 503, code: 'unavailable' });
    state.failing = false;
    const ctx = ctxFor('/dav/a');
    await mw(ctx, async () => {});
    expect([ctx.body, state.loads]).toEqual(['loaded #2', 2]);
  });
});
