/**
 * Running one program: line splitting, exit codes, limits, the process group, the scrubbed
 * environment; and the Origin check of the runner's WebSocket.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alive, gone } from '../helpers/processes.ts';
import { LineSplitter, RunningProcess, SAFE_PATH, scrubbedEnv, type ProcessSpec } from '../../src/services/exec/process.ts';
import { sameOrigin } from '../../src/server/routes/command.ts';

function collect(spec: Partial<ProcessSpec> & { file: string; args: string[] }) {
  const lines: Array<[string, string]> = [];
  const proc = new RunningProcess(
    { cwd: '/', env: scrubbedEnv('/'), limits: { timeoutMs: 60_000, maxOutputBytes: 1 << 20 }, ...spec },
    { line: (text, stream) => lines.push([stream, text]) },
  );
  return { proc, lines };
}

/** The pid a test script wrote with `echo $! > file`, once the whole line is there (the file exists before its content). */
async function pidFrom(file: string): Promise<number> {
  for (let i = 0; i < 500; i++) {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (/^\d+\n$/.test(text)) {
      fs.rmSync(file);
      return Number(text);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no pid in ${file}`);
}

describe('LineSplitter', () => {
  it('splits on newlines across chunks, drops \\r, keeps UTF-8 characters split between chunks', () => {
    const s = new LineSplitter();
    const out: string[] = [];
    const euro = Buffer.from('€');
    s.push(Buffer.concat([Buffer.from('a\r\nb'), euro.subarray(0, 1)]), (l) => out.push(l));
    s.push(Buffer.concat([euro.subarray(1), Buffer.from('\n\nlast')]), (l) => out.push(l));
    s.flush((l) => out.push(l));
    expect(out).toEqual(['a', 'b€', '', 'last']);
  });

  it('cuts very long lines so memory stays bounded', () => {
    const s = new LineSplitter();
    const out: string[] = [];
    s.push(Buffer.alloc(200 * 1024, 'x'), (l) => out.push(l));
    expect(out.length).toBe(3);
    expect(out.every((l) => l.length === 64 * 1024)).toBe(true);
  });
});

describe('RunningProcess', () => {
  it('streams stdout and stderr lines and reports the exit code', async () => {
    const { proc, lines } = collect({ file: '/bin/sh', args: ['-c', 'echo out; echo err >&2; exit 3'] });
    expect(await proc.done).toEqual({ code: 3, signal: undefined, reason: undefined });
    expect(lines).toContainEqual(['stdout', 'out']);
    expect(lines).toContainEqual(['stderr', 'err']);
  });

  it('sees exactly the environment it is given', async () => {
    const { proc, lines } = collect({ file: '/usr/bin/env', args: [], env: scrubbedEnv('/srv/home', { EXTRA: '1' }) });
    await proc.done;
    const keys = lines.map(([, l]) => l.split('=')[0]).sort();
    expect(keys).toEqual(['EXTRA', 'HOME', 'LANG', 'PATH', 'TERM']);
    expect(lines).toContainEqual(['stdout', `PATH=${SAFE_PATH}`]);
  });

  it('reports a program that cannot start', async () => {
    const { proc } = collect({ file: '/nonexistent/program', args: [] });
    expect(await proc.done).toMatchObject({ code: 127, error: 'ENOENT' });
  });

  it('EXEC: stops at the time limit, with the whole process group', async () => {
    const marker = `fm-unit-${process.pid}-a`;
    const { proc } = collect({
      file: '/bin/sh',
      args: ['-c', `sleep 1000 & echo $! > /tmp/${marker}; wait`],
      limits: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    const result = await proc.done;
    expect(result).toMatchObject({ reason: 'time limit', signal: 'SIGTERM', code: 143 });
    const child = await pidFrom(`/tmp/${marker}`);
    expect(await gone(child)).toBe(true);
  });

  it('EXEC: stops at the output limit and forwards no more than the limit', async () => {
    const { proc, lines } = collect({ file: '/usr/bin/yes', args: ['abc'], limits: { timeoutMs: 60_000, maxOutputBytes: 1000 } });
    const result = await proc.done;
    expect(result.reason).toBe('output limit');
    const bytes = lines.reduce((n, [, l]) => n + Buffer.byteLength(l) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(1001);
    expect(lines.length).toBeGreaterThan(200);
  });

  it('EXEC: stop() kills everything the program started, even in the background', async () => {
    const marker = `fm-unit-${process.pid}-b`;
    const { proc } = collect({ file: '/bin/sh', args: ['-c', `sleep 1000 & echo $! > /tmp/${marker}; sleep 1000`] });
    const child = await pidFrom(`/tmp/${marker}`);
    expect(alive(child)).toBe(true);
    proc.stop('cancelled');
    expect(await proc.done).toMatchObject({ reason: 'cancelled' });
    expect(await gone(child)).toBe(true);
  });

  it('EXEC: leftovers in the group die when the program itself exits', async () => {
    const marker = `fm-unit-${process.pid}-c`;
    const { proc } = collect({ file: '/bin/sh', args: ['-c', `sleep 1000 > /dev/null 2>&1 & echo $! > /tmp/${marker}`] });
    expect(await proc.done).toMatchObject({ code: 0 });
    const child = await pidFrom(`/tmp/${marker}`);
    expect(await gone(child)).toBe(true);
  });
});

describe('sameOrigin (AUTH: CSRF on the WebSocket, GHSA-72wf-hwcq-65h9)', () => {
  it('accepts the server itself, behind a TLS proxy too', () => {
    expect(sameOrigin('http://127.0.0.1:8080', '127.0.0.1:8080')).toBe(true);
    expect(sameOrigin('http://FM.example:8080', 'fm.example:8080')).toBe(true);
    expect(sameOrigin('https://fm.example', 'fm.example')).toBe(true);
    expect(sameOrigin('http://fm.example', 'fm.example:80')).toBe(true);
    expect(sameOrigin('https://fm.example', 'fm.example:443')).toBe(true);
    expect(sameOrigin('http://[::1]:8080', '[::1]:8080')).toBe(true);
  });

  it('accepts a missing Origin (non-browser clients)', () => {
    expect(sameOrigin(undefined, 'fm.example')).toBe(true);
  });

  it('refuses other sites, other ports, null and odd schemes', () => {
    expect(sameOrigin('http://evil.example', 'fm.example')).toBe(false);
    expect(sameOrigin('http://fm.example.evil.example', 'fm.example')).toBe(false);
    expect(sameOrigin('http://fm.example:8081', 'fm.example:8080')).toBe(false);
    expect(sameOrigin('http://fm.example', 'fm.example:443')).toBe(false);
    expect(sameOrigin('http://fm.example:8080', 'fm.example')).toBe(false);
    expect(sameOrigin('null', 'fm.example')).toBe(false);
    expect(sameOrigin('file://', 'fm.example')).toBe(false);
    expect(sameOrigin('http://fm.example', undefined)).toBe(false);
    expect(sameOrigin('', 'fm.example')).toBe(false);
  });
});
