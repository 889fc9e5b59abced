/** The responses in flight that the shutdown marks (server/in-flight.ts): held until released, slots reused. */
import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/server/in-flight.ts';

describe('InFlight', () => {
  it('holds items until they are released, and lists only those', () => {
    const held = new InFlight<{ id: number }>();
    const a = { id: 1 };
    const b = { id: 2 };
    const c = { id: 3 };
    const sa = held.hold(a);
    const sb = held.hold(b);
    held.hold(c);
    held.release(sb);
    expect([...held]).toEqual([a, c]);
    expect(held.size).toBe(2);
    held.release(sa);
    held.release(sa); // a second release of the same slot changes nothing
    expect([...held]).toEqual([c]);
    expect(held.size).toBe(1);
  });

  it('reuses released slots instead of growing', () => {
    const held = new InFlight<object>();
    for (let i = 0; i < 1000; i++) held.release(held.hold({}));
    const d = {};
    expect(held.hold(d)).toBe(0);
    expect([...held]).toEqual([d]);
  });
});
