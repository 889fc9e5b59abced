/**
 * Starts one program (never through a shell fm did not build the line for) in its own process
 * group, with a scrubbed environment, a time limit and an output limit, and streams its output
 * line by line. `kill` ends the whole group, so children the program started die with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import os from 'node:os';
import type { Readable } from 'node:stream';

/** The only PATH a command or hook ever sees. */
export const SAFE_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface ExecLimits {
  /** Wall-clock limit per run, in milliseconds. */
  timeoutMs: number;
  /** Limit on stdout + stderr bytes per run. */
  maxOutputBytes: number;
}

export const DEFAULT_LIMITS: ExecLimits = { timeoutMs: 10 * 60_000, maxOutputBytes: 10 * 1024 * 1024 };

/** Lines longer than this are sent in pieces, so memory stays bounded without a newline. */
const MAX_LINE = 64 * 1024;
/** Time between the polite SIGTERM and the SIGKILL when a run is stopped. */
const KILL_GRACE_MS = 1000;

/**
 * The environment of every command and hook: a fixed PATH, HOME set to the user's scope, a
 * locale, and the given extras. Nothing is inherited from the server (no FM_*, no secrets).
 */
export function scrubbedEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const lang = process.env.LANG && /^[A-Za-z0-9_.@-]+$/.test(process.env.LANG) ? process.env.LANG : 'C.UTF-8';
  return { PATH: SAFE_PATH, HOME: home, LANG: lang, TERM: 'xterm-256color', ...extra };
}

export interface ProcessSpec {
  /** Absolute path of the program. */
  file: string;
  args: string[];
  /** argv[0] as the program sees it (defaults to `file`). */
  argv0?: string;
  cwd: string;
  env: Record<string, string>;
  limits: ExecLimits;
  /** The sandbox's part of the run (sandbox.ts): extra fds, a watchdog, clean-up. */
  confinement?: Confinement;
}

export type StopReason = 'time limit' | 'output limit' | 'process limit' | 'cancelled';

/** What a sandbox adds to a run. */
export interface Confinement {
  /** stdio entries for fd 3, 4, ... of the child. */
  stdio: Array<'pipe' | number>;
  /** Called once the child is spawned; `stop` ends the run with a reason. */
  started(child: ChildProcess, stop: (reason: StopReason) => void): void;
  /** Called once the run is over (its processes and pipes are gone). */
  ended(): void;
}

export interface ProcessResult {
  /** Exit status; 128 + the signal number when a signal ended the program; 127 when it could not start. */
  code: number;
  signal?: NodeJS.Signals;
  /** Set when fm stopped the program. */
  reason?: StopReason;
  /** Set when the program could not be started. */
  error?: string;
}

export interface OutputSink {
  line(text: string, stream: 'stdout' | 'stderr'): void;
}

export class RunningProcess {
  readonly pid: number | undefined;
  readonly done: Promise<ProcessResult>;
  private reason?: StopReason;
  private exited = false;
  private readonly streams: Readable[] = [];

  constructor(spec: ProcessSpec, sink: OutputSink) {
    const child = spawn(spec.file, spec.args, {
      argv0: spec.argv0,
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe', ...(spec.confinement?.stdio ?? [])],
      shell: false,
      // Its own process group, so that kill() reaches everything it starts.
      detached: true,
      windowsHide: true,
    });
    this.pid = child.pid;
    let bytes = 0;
    const onChunk = (stream: 'stdout' | 'stderr', splitter: LineSplitter) => (chunk: Buffer) => {
      if (this.reason === 'output limit') return;
      bytes += chunk.length;
      if (bytes > spec.limits.maxOutputBytes) {
        const room = chunk.length - (bytes - spec.limits.maxOutputBytes);
        if (room > 0) splitter.push(chunk.subarray(0, room), (l) => sink.line(l, stream));
        this.stop('output limit');
        return;
      }
      splitter.push(chunk, (l) => sink.line(l, stream));
    };
    const splitters = { stdout: new LineSplitter(), stderr: new LineSplitter() };
    for (const name of ['stdout', 'stderr'] as const) {
      const s = child[name]!;
      this.streams.push(s);
      s.on('data', onChunk(name, splitters[name]));
    }
    const timer = setTimeout(() => this.stop('time limit'), spec.limits.timeoutMs);
    timer.unref();
    spec.confinement?.started(child, (reason) => this.stop(reason));

    this.done = new Promise<ProcessResult>((resolve) => {
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let startError: string | undefined;
      child.once('error', (err) => {
        startError = (err as NodeJS.ErrnoException).code ?? err.message;
        // A spawn failure emits no 'exit'; 'close' still follows.
      });
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        this.exited = true;
        // The program is gone: anything it left behind in its group goes too, which also lets
        // the pipes close when a background child still holds them.
        this.signalGroup('SIGKILL');
      });
      child.once('close', () => {
        clearTimeout(timer);
        spec.confinement?.ended();
        for (const name of ['stdout', 'stderr'] as const) splitters[name].flush((l) => sink.line(l, name));
        if (!exit) {
          resolve({ code: 127, error: startError ?? 'could not start' });
          return;
        }
        const signal = exit.signal ?? undefined;
        const code = exit.code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0);
        resolve({ code, signal, reason: this.reason });
      });
    });
  }

  /** Stops the program and everything it started (SIGTERM, then SIGKILL after a grace period). */
  stop(reason: StopReason): void {
    if (this.reason) return;
    this.reason = reason;
    if (this.exited) return;
    for (const s of this.streams) s.resume();
    this.signalGroup('SIGTERM');
    const t = setTimeout(() => this.signalGroup('SIGKILL'), KILL_GRACE_MS);
    t.unref();
    void this.done.then(() => clearTimeout(t));
  }

  /** Backpressure: stop reading output until `resume` (the pipe then fills and the program waits). */
  pause(): void {
    if (!this.reason) for (const s of this.streams) s.pause();
  }

  resume(): void {
    for (const s of this.streams) s.resume();
  }

  get running(): boolean {
    return !this.exited;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (!this.pid) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

/** Splits a byte stream into UTF-8 lines (without the newline; a trailing \r is dropped). */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  push(chunk: Buffer, emit: (line: string) => void): void {
    const text = this.pending + this.decoder.write(chunk);
    let from = 0;
    for (let nl = text.indexOf('\n', from); nl >= 0; nl = text.indexOf('\n', from)) {
      emit(stripCR(text.slice(from, nl)));
      from = nl + 1;
    }
    this.pending = text.slice(from);
    while (this.pending.length > MAX_LINE) {
      emit(this.pending.slice(0, MAX_LINE));
      this.pending = this.pending.slice(MAX_LINE);
    }
  }

  flush(emit: (line: string) => void): void {
    this.pending += this.decoder.end();
    if (this.pending) emit(stripCR(this.pending));
    this.pending = '';
  }
}

function stripCR(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}
