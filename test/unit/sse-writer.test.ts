/** Server-Sent Events writing: the event format, and a client that stops reading is let go past the bound. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sseWriter } from '../../src/server/sse.ts';

describe('sseWriter', () => {
  it('writes one event per call in the SSE format', () => {
    const body = new PassThrough();
    const send = sseWriter(body, () => {});
    send('change', { items: [], removed: ['a'] });
    expect(body.read().toString()).toBe('event: change\ndata: {"items":[],"removed":["a"]}\n\n');
  });

  it('calls overflow once unread bytes pass the limit, and writes nothing after the end', () => {
    const body = new PassThrough();
    let overflows = 0;
    const send = sseWriter(
      body,
      () => {
        overflows++;
        body.end();
      },
      64 * 1024,
    );
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 7 && !overflows; i++) send('change', { big });
    expect(overflows).toBe(0);
    for (let i = 0; i < 20 && !overflows; i++) send('change', { big });
    expect(overflows).toBe(1);
    send('change', { big });
    expect(overflows).toBe(1);
  });
});
