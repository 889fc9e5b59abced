/** Incremental parsing of streamed answers: search NDJSON (spec §4 "Search") and the shell protocol (docs/exec.md). */
import { describe, expect, it } from 'vitest';
import { stripAnsi } from '../../web/lib/ansi.ts';
import { NdjsonParser, readNdjson } from '../../web/lib/ndjson.ts';
import { clampShellHeight, ShellHistory, ShellStream } from '../../web/lib/shellProtocol.ts';

describe('NDJSON', () => {
  it('returns complete lines as they arrive, across chunk boundaries, skipping heartbeats', () => {
    const p = new NdjsonParser<{ path: string }>();
    expect(p.push('{"path":"a"}\n{"pa')).toEqual([{ path: 'a' }]);
    expect(p.push('th":"b"}')).toEqual([]);
    expect(p.push('\n\n')).toEqual([{ path: 'b' }]);
    expect(p.push('{"path":"c"}')).toEqual([]);
    expect(p.end()).toEqual([{ path: 'c' }]);
    expect(p.end()).toEqual([]);
  });

  it('reads a byte stream whose chunks split a multi-byte character', async () => {
    const bytes = new TextEncoder().encode('{"path":"é/ü"}\n{"path":"z"}\n');
    const chunks = [bytes.slice(0, 11), bytes.slice(11, 20), bytes.slice(20)];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(ch);
        c.close();
      },
    });
    const batches: unknown[][] = [];
    for await (const b of readNdjson(stream)) batches.push(b);
    expect(batches.flat()).toEqual([{ path: 'é/ü' }, { path: 'z' }]);
  });
});

describe('shell protocol', () => {
  it('takes only the last message before the close as the status', () => {
    const s = new ShellStream();
    expect(s.message('hello')).toEqual(['hello']);
    // A program printed something that looks like a status: it is output once more arrives.
    expect(s.message('{"type":"exit","code":3}')).toEqual([]);
    expect(s.message('more')).toEqual(['{"type":"exit","code":3}', 'more']);
    expect(s.message('{"type":"exit","code":0}')).toEqual([]);
    expect(s.close()).toEqual({ lines: [], status: { type: 'exit', code: 0 } });
  });

  it('reports refusals, and a close without a status', () => {
    const s = new ShellStream();
    expect(s.message('Command not allowed: no')).toEqual(['Command not allowed: no']);
    s.message('{"type":"refused","message":"no"}');
    expect(s.close().status).toEqual({ type: 'refused', message: 'no' });
    const t = new ShellStream();
    t.message('{ not json');
    expect(t.close()).toEqual({ lines: [] });
  });

  it('strips colour codes', () => {
    expect(stripAnsi('\u001b[1;31mred\u001b[0m plain \u001b]0;title\u0007end')).toBe('red plain end');
  });

  it('walks the history with up and down', () => {
    const h = new ShellHistory();
    expect(h.up()).toBeUndefined();
    h.add('ls');
    h.add('echo a');
    h.add('echo a');
    expect(h.up()).toBe('echo a');
    expect(h.up()).toBe('ls');
    expect(h.up()).toBe('ls');
    expect(h.down()).toBe('echo a');
    expect(h.down()).toBe('');
  });

  it('keeps the panel between the prompt line plus divider and the window minus 4em', () => {
    expect(clampShellHeight(400, 16, 6, 800)).toBe(400);
    expect(clampShellHeight(10, 16, 6, 800)).toBe(2.25 * 16 + 6);
    expect(clampShellHeight(5000, 16, 6, 800)).toBe(800 - 64);
  });
});
