/**
 * Wraps a command or hook in a bubblewrap sandbox (mounts.ts says what it sees) with limits:
 * memory (RLIMIT_AS), file size (RLIMIT_FSIZE), no core files, and processes (pids.ts). The
 * limits are set inside the sandbox by util-linux's prlimit, which then runs the program.
 * `unsandboxed` (fm serve --exec-unsandboxed) is the admin's explicit way to run without.
 */
import type { ChildProcess } from 'node:child_process';
import { realPathSync, statSync } from '../files/disk/lookup.ts';
import type { Readable } from 'node:stream';
import { bwrapArgs, emptyFdCount, findBwrap, INSTALL_HINT, openDevNull, probeBwrap, systemFileExists, systemLayout } from './bwrap.ts';
import { sandboxMounts, type PathFact, type SystemLayout, type TreeSpec } from './mounts.ts';
import { countNamespaceProcesses, findPidsCgroupBase, PidsCgroup, watchLimit } from './pids.ts';
import type { Confinement } from './process.ts';
import { CommandRefusedError } from './syntax.ts';

export interface SandboxOptions {
  /** bwrap's path; undefined: looked up in PATH; null: there is none. */
  bwrap?: string | null;
  /** Run commands and hooks without a sandbox (fm serve --exec-unsandboxed). */
  unsandboxed?: boolean;
  /** Hold the process limit with a pids cgroup when one is writable (default true). */
  cgroups?: boolean;
}

/** Per-run limits from the settings; 0 means none. */
export interface SandboxLimits {
  /** Address space of each process, bytes (also the size of the private /tmp). */
  memory: number;
  /** Largest file a process may write, bytes. */
  fileSize: number;
  /** Processes (and threads) of the whole sandbox. */
  processes: number;
}

export interface SandboxRequest {
  /** Absolute path of the program, and its arguments. */
  file: string;
  args: readonly string[];
  /** The name the program was given by (looked up in the same fixed PATH inside, so it is the same file). */
  argv0?: string;
  /** Working folder (inside the tree, or / without one). */
  cwd: string;
  /** Every program file the run starts (bound read-only when outside the system folders). */
  programs: readonly string[];
  tree?: TreeSpec;
  network: boolean;
  limits: SandboxLimits;
}

export interface SandboxedSpec {
  file: string;
  args: string[];
  confinement: Confinement;
}

/** How the process limit is held on this machine. */
export type ProcessLimitMode = 'cgroup' | 'rlimit' | 'namespace count';

interface Probed {
  problem?: string;
  layout: SystemLayout;
  cgroupBase?: string;
  /** Open on /dev/null: the source of every empty-file mask (bwrap reads it to its end). */
  emptyFd?: number;
}

const INFO_FD = 3;
/** Processes of bwrap itself in a run's cgroup: the outer bwrap and the sandbox's init. */
const BWRAP_PROCESSES = 2;
const PRLIMIT = '/usr/bin/prlimit';
const SH = '/bin/sh';

export class Sandbox {
  readonly unsandboxed: boolean;
  readonly bwrap: string | undefined;
  private readonly cgroups: boolean;
  private probed?: Promise<Probed>;
  private readonly isRoot = process.getuid?.() === 0;

  constructor(opts: SandboxOptions = {}) {
    this.unsandboxed = Boolean(opts.unsandboxed);
    this.bwrap = opts.bwrap === null ? undefined : (opts.bwrap ?? findBwrap());
    this.cgroups = opts.cgroups ?? true;
  }

  private probe(): Promise<Probed> {
    this.probed ??= (async () => {
      const layout = systemLayout();
      let problem = await probeBwrap(this.bwrap, layout);
      if (!problem && !systemFileExists(PRLIMIT)) problem = `${PRLIMIT} is missing (Debian package util-linux)`;
      if (problem) return { problem, layout };
      const cgroupBase = this.cgroups ? await findPidsCgroupBase() : undefined;
      return { layout, cgroupBase, emptyFd: openDevNull() };
    })();
    return this.probed;
  }

  /** Why commands cannot be sandboxed on this machine, or undefined when they can. */
  async problem(): Promise<string | undefined> {
    return (await this.probe()).problem;
  }

  /**
   * Why command execution may not be on here, or undefined: it may when the sandbox works or
   * the admin chose to run unsandboxed.
   */
  async refusal(): Promise<string | undefined> {
    if (this.unsandboxed) return undefined;
    const problem = await this.problem();
    if (!problem) return undefined;
    return `commands and hooks run only inside a sandbox, and ${problem.replace(`; ${INSTALL_HINT}`, '')}: ${INSTALL_HINT}, or start fm serve with --exec-unsandboxed to run them unconfined (see docs/exec.md)`;
  }

  /** How processes are counted here (cgroup, RLIMIT_NPROC, or a watchdog over the PID namespace). */
  async processLimitMode(): Promise<ProcessLimitMode> {
    if ((await this.probe()).cgroupBase) return 'cgroup';
    return this.isRoot ? 'namespace count' : 'rlimit';
  }

  /** What to spawn for a request: bwrap (joined to a pids cgroup first when there is one). */
  async prepare(req: SandboxRequest): Promise<SandboxedSpec> {
    const probed = await this.probe();
    if (probed.problem || probed.emptyFd === undefined) throw new CommandRefusedError((await this.refusal()) ?? 'the sandbox is not available');
    const mounts = sandboxMounts({ layout: probed.layout, network: req.network, tmpSize: req.limits.memory, programs: req.programs, tree: req.tree }, pathFact);
    const { memory, fileSize, processes } = req.limits;
    const inner = [PRLIMIT, '--core=0'];
    if (memory > 0) inner.push(`--as=${memory}`);
    if (fileSize > 0) inner.push(`--fsize=${fileSize}`);
    // Inside the new user namespace RLIMIT_NPROC counts only the sandbox (plus bwrap's init).
    if (processes > 0 && !this.isRoot) inner.push(`--nproc=${processes + 1}`);
    // A bare name keeps argv[0] (and messages such as "ls: ...") as typed.
    inner.push('--', req.argv0 && !req.argv0.includes('/') ? req.argv0 : req.file, ...req.args);
    const args = [...bwrapArgs(mounts, { network: req.network, cwd: req.cwd, firstEmptyFd: INFO_FD + 1, infoFd: INFO_FD }), ...inner];

    const cgroup = processes > 0 && probed.cgroupBase ? await PidsCgroup.create(probed.cgroupBase, processes + BWRAP_PROCESSES) : undefined;
    const confinement = limitWatcher(processes, cgroup, Array<number>(emptyFdCount(mounts)).fill(probed.emptyFd));
    if (!cgroup) return { file: this.bwrap!, args, confinement };
    // The shell joins the cgroup and becomes bwrap, so nothing of the sandbox starts outside it.
    return { file: SH, args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, this.bwrap!, ...args], confinement };
  }
}

/**
 * The confinement of one run: the info pipe (fd 3) and the empty-file sources (fd 4, ...), and the
 * watchdog that stops the run when the process limit is reached.
 */
function limitWatcher(limit: number, cgroup: PidsCgroup | undefined, emptyFds: number[]): Confinement {
  let unwatch: (() => void) | undefined;
  let ended = false;
  return {
    // fd 3, then one fd per empty-file mask.
    stdio: ['pipe', ...emptyFds],
    started(child: ChildProcess, stop) {
      if (cgroup && limit > 0)
        unwatch = watchLimit(
          () => cgroup.limitHit(),
          () => stop('process limit'),
        );
      // Without a cgroup: count the processes of the sandbox's PID namespace (bwrap's init aside).
      readInfo(child, (info) => {
        const ns = info['pid-namespace'];
        if (cgroup || limit <= 0 || ended || typeof ns !== 'number') return;
        const name = `pid:[${ns}]`;
        unwatch = watchLimit(
          async () => (await countNamespaceProcesses(name)) - 1 >= limit,
          () => stop('process limit'),
        );
      });
    },
    ended() {
      ended = true;
      unwatch?.();
      void cgroup?.remove().catch(() => {});
    },
  };
}

/** Reads bwrap's JSON from the info pipe (always read to its end: the child's 'close' waits for it). */
function readInfo(child: ChildProcess, use: (info: Record<string, unknown>) => void): void {
  // fd 3 is a pipe bwrap writes to.
  const pipe = child.stdio[INFO_FD] as Readable | null;
  if (!pipe) return;
  let text = '';
  let done = false;
  pipe.setEncoding('utf8');
  pipe.on('data', (d: string) => {
    if (done) return;
    text += d;
    let info: Record<string, unknown>;
    try {
      info = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return; // Not complete yet.
    }
    done = true;
    use(info);
  });
  pipe.on('error', () => {});
}

/** What is at a path, links followed (for masks and binds). */
function pathFact(abs: string): PathFact {
  try {
    const real = realPathSync(abs);
    return { kind: statSync(real).isDirectory() ? 'dir' : 'file', real };
  } catch {
    return { kind: 'missing', real: abs };
  }
}
