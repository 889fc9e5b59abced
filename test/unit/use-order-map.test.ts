/** The listing memos' least-recently-used order (services/use-order-map.ts): `touch` moves a key to the newest end, and skips only when it is there already. */
import { describe, expect, it } from 'vitest';
import { UseOrderMap } from '../../src/services/use-order-map.ts';

const order = (m: Map<string, number>) => [...m.keys()];

describe('UseOrderMap', () => {
  it('moves a touched key to the newest end, keeping its value', () => {
    const m = new UseOrderMap<string, number>();
    m.set('a', 1).set('b', 2).set('c', 3);
    m.touch('a');
    expect(order(m)).toEqual(['b', 'c', 'a']);
    expect(m.get('a')).toBe(1);
    m.touch('b');
    m.touch('b');
    expect(order(m)).toEqual(['c', 'a', 'b']);
  });

  it('knows the newest after every kind of change', () => {
    const m = new UseOrderMap<string, number>();
    m.set('a', 1).set('b', 2);
    m.set('a', 10); // a present key keeps its place: b is still the newest
    m.touch('a');
    expect(order(m)).toEqual(['b', 'a']);
    m.delete('a');
    m.set('c', 3).set('a', 4); // a goes back in at the end
    m.touch('c');
    expect(order(m)).toEqual(['b', 'a', 'c']);
    m.clear();
    m.set('x', 1).set('y', 2);
    m.touch('x');
    expect(order(m)).toEqual(['y', 'x']);
  });

  it('leaves out a key that is not present', () => {
    const m = new UseOrderMap<string, number>();
    m.set('a', 1);
    m.touch('zz');
    expect(order(m)).toEqual(['a']);
    expect(m.has('zz')).toBe(false);
  });
});
