/** The live-listing hub: who hears which change, the per-user bound, and release on unsubscribe. */
import { describe, expect, it } from 'vitest';
import { LiveFolders, type LiveSink } from '../../src/services/live/hub.ts';

function sink(): LiveSink & { names: string[]; resets: number } {
  const s = { names: [] as string[], resets: 0, changed: (n: string) => s.names.push(n), reset: () => s.resets++ };
  return s;
}

describe('LiveFolders', () => {
  it('tells the subscribers of the parent folder the name, and nobody else', () => {
    const hub = new LiveFolders();
    const a = sink();
    const b = sink();
    hub.subscribe(1, '/r/a', a, () => {});
    hub.subscribe(1, '/r/b', b, () => {});
    hub.diskChanged('/r/a/x.txt', 'create', false);
    hub.diskChanged('/r/a/sub/deep.txt', 'update', false);
    expect(a.names).toEqual(['x.txt']);
    expect(b.names).toEqual([]);
  });

  it('a lossy path resets its folder; removing a watched folder or its parent resets it', () => {
    const hub = new LiveFolders();
    const a = sink();
    const deep = sink();
    hub.subscribe(1, '/r/a', a, () => {});
    hub.subscribe(1, '/r/a/b/c', deep, () => {});
    hub.diskChanged('/r/a/\ufffd', 'create', true);
    expect(a.resets).toBe(1);
    hub.diskChanged('/r/a/b', 'delete', false);
    expect(a.names).toEqual(['b']);
    expect(deep.resets).toBe(1);
  });

  it('bounds the streams per user and frees a place on unsubscribe (once, however often called)', () => {
    const hub = new LiveFolders(2);
    const off1 = hub.subscribe(7, '/r', sink(), () => {});
    hub.subscribe(7, '/r', sink(), () => {});
    expect(() => hub.subscribe(7, '/r', sink(), () => {})).toThrow(/at most 2/);
    hub.subscribe(8, '/r', sink(), () => {});
    off1();
    off1();
    hub.subscribe(7, '/r', sink(), () => {});
    expect(() => hub.subscribe(7, '/r', sink(), () => {})).toThrow();
    expect(hub.size).toBe(3);
  });

  it('endAll ends every open stream', () => {
    const hub = new LiveFolders();
    let ended = 0;
    const offs: Array<() => void> = [];
    const end = () => {
      ended++;
      for (const off of offs) off();
    };
    offs.push(hub.subscribe(1, '/r', sink(), end), hub.subscribe(2, '/s', sink(), end));
    hub.endAll();
    expect(ended).toBe(2);
    expect(hub.size).toBe(0);
  });

  it('without the index, watches each followed folder once, while anyone follows it', () => {
    const hub = new LiveFolders();
    const opened: string[] = [];
    const closed: string[] = [];
    const hear = new Map<string, (name: string | null) => void>();
    hub.watchFoldersWith((dir, onChange) => {
      if (dir === '/r/unwatchable') return undefined;
      opened.push(dir);
      hear.set(dir, onChange);
      return () => closed.push(dir);
    });
    const a = sink();
    const b = sink();
    const offA = hub.subscribe(1, '/r/a', a, () => {});
    const offB = hub.subscribe(2, '/r/a', b, () => {});
    expect(opened).toEqual(['/r/a']);
    hear.get('/r/a')!('x.txt');
    expect(a.names).toEqual(['x.txt']);
    expect(b.names).toEqual(['x.txt']);
    hear.get('/r/a')!(null);
    expect([a.resets, b.resets]).toEqual([1, 1]);
    offA();
    expect(closed).toEqual([]);
    offB();
    expect(closed).toEqual(['/r/a']);
    hub.subscribe(1, '/r/a', sink(), () => {});
    expect(opened).toEqual(['/r/a', '/r/a']);
    // A folder that cannot be watched is still followed (fm's own changes), with nothing to close.
    const u = sink();
    const offU = hub.subscribe(1, '/r/unwatchable', u, () => {});
    hub.diskChanged('/r/unwatchable/y', 'create', false);
    expect(u.names).toEqual(['y']);
    offU();
  });
});
