/**
 * Command execution: the runner behind `GET /api/command/{path}`, the event hooks and the auth
 * hook all go through here. See docs/exec.md for what is refused and why.
 */
import { realPathSync, statSync } from '../files/disk/lookup.ts';
import path from 'node:path';
import type { AllowlistOptions } from '../settings.ts';
import { FmError } from '../../errors.ts';
import type { Settings, SharedSettings } from '../../api/settings.ts';
import { HOOK_TRIGGERS } from '../../api/settings.ts';
import { BadRequestError } from '../../errors.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { Logger } from '../context.ts';
import type { Access, Gate } from '../files/gate.ts';
import { checkAllowlist, checkShellSetting } from './launchers.ts';
import { checkTreeLocation, SANDBOX_HOME, treeMounts, type TreeSpec } from './mounts.ts';
import { checkLineShape, parseArgv, planCommand, resolveProgram, type Plan } from './plan.ts';
import { DEFAULT_LIMITS, RunningProcess, scrubbedEnv, type ExecLimits, type OutputSink, type ProcessResult, type ProcessSpec } from './process.ts';
import { Sandbox, type SandboxLimits } from './sandbox.ts';
import { CommandRefusedError } from './syntax.ts';
import { RunSlots } from './run-slots.ts';

export { CommandRefusedError } from './syntax.ts';
export { MAX_RUNS_PER_USER, RunSlots } from './run-slots.ts';
export { checkAllowlist, checkShellSetting, isLauncher, launcherReason } from './launchers.ts';
export { DEFAULT_LIMITS, SAFE_PATH, scrubbedEnv, type ExecLimits, type ProcessResult, type RunningProcess } from './process.ts';
export { parseArgv, type Plan } from './plan.ts';
export { Sandbox, type SandboxOptions } from './sandbox.ts';
export type { TreeSpec } from './mounts.ts';

/** How one run is started: its environment, the settings in force and the folder it may see. */
export interface StartOptions {
  env: Record<string, string>;
  settings: SharedSettings;
  /** The folder mounted in the sandbox (none for the auth hook). */
  tree?: TreeSpec;
  limits?: ExecLimits;
}

export class ExecService {
  private readonly running = new Set<RunningProcess>();
  /** Commands each user runs now (at most MAX_RUNS_PER_USER at once). */
  private readonly slots = new RunSlots();

  constructor(
    private readonly gate: Gate,
    private readonly log: Logger,
    readonly limits: ExecLimits = DEFAULT_LIMITS,
    readonly sandbox: Sandbox = new Sandbox(),
  ) {}

  /**
   * Takes one of the user's run slots, or throws CommandRefusedError when they already run the
   * most commands allowed at once. Call the returned function when the run ends.
   */
  claimRun(userId: number): () => void {
    return this.slots.claim(userId);
  }

  /**
   * Checks a user's command line for a folder (virtual path in `access`): exec enabled, the
   * sandbox, the execute permission, the folder through the gate, then the line itself
   * (plan.ts). Throws CommandRefusedError with the reason.
   */
  async prepareRun(user: UserRecord, settings: SharedSettings, access: Access, folder: string, line: string): Promise<Plan> {
    if (!settings.enableExec) throw new CommandRefusedError('command execution is disabled on this server');
    let dir;
    try {
      this.gate.checkPermission(access, 'execute');
      dir = await this.gate.resolve(access, folder, 'execute');
    } catch (err) {
      if (err instanceof FmError) throw new CommandRefusedError(err.message);
      throw err;
    }
    if (!dir.isDir) throw new CommandRefusedError('this is not a folder (commands run in a folder)');
    const refusal = await this.sandbox.refusal();
    if (refusal) throw new CommandRefusedError(refusal);
    if (!this.sandbox.unsandboxed) treeMounts(this.userTree(access), () => ({ kind: 'missing', real: '' }));
    return planCommand(line, {
      purpose: 'run',
      shell: settings.shell,
      allowlist: user.commands,
      gate: this.gate,
      access,
      cwdVirtual: dir.virtual,
      cwd: dir.real,
    });
  }

  /**
   * What a user's sandbox mounts: their scope, read-write only when they may create, rename,
   * modify and delete (or are admin), with their rules and fm's own files masked.
   */
  userTree(access: Access): TreeSpec {
    const p = access.user.perm;
    return {
      root: access.rootReal,
      writable: p.admin || (p.create && p.rename && p.modify && p.delete),
      rules: [...access.settings.rules, ...access.user.rules],
      protectedPaths: this.gate.protectedList,
    };
  }

  /** What a hook's sandbox mounts: the whole served root, read-write, fm's own files masked. */
  hookTree(): TreeSpec {
    checkTreeLocation(this.gate.root);
    return { root: this.gate.root, writable: true, rules: [], protectedPaths: this.gate.protectedList };
  }

  /**
   * The environment of a run: the scrubbed variables plus `extra`, HOME the sandbox's own fresh
   * folder (unsandboxed, as before: `home`, the user's folder).
   */
  env(home: string, extra: Record<string, string> = {}): Record<string, string> {
    return scrubbedEnv(this.sandbox.unsandboxed ? home : SANDBOX_HOME, extra);
  }

  /**
   * Starts a checked plan in its sandbox; the process is stopped by `closeAll` at shutdown.
   * Throws CommandRefusedError when the sandbox cannot hold it.
   */
  async start(plan: Plan, opts: StartOptions, sink: OutputSink): Promise<RunningProcess> {
    const proc = new RunningProcess(await this.spec(plan.file, plan.args, plan.argv0, plan.cwd, plan.files, opts), sink);
    this.running.add(proc);
    void proc.done.then(() => this.running.delete(proc));
    return proc;
  }

  private async spec(file: string, args: string[], argv0: string, cwd: string, files: string[], opts: StartOptions): Promise<ProcessSpec> {
    const limits = opts.limits ?? this.limits;
    if (this.sandbox.unsandboxed) return { file, args, argv0, cwd, env: opts.env, limits };
    const wrapped = await this.sandbox.prepare({
      file,
      args,
      argv0,
      cwd,
      programs: files,
      tree: opts.tree,
      network: opts.settings.execNetwork,
      limits: sandboxLimits(opts.settings),
    });
    return { file: wrapped.file, args: wrapped.args, cwd, env: opts.env, limits, confinement: wrapped.confinement };
  }

  /** Stops every running command and hook (server shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.running];
    for (const p of all) p.stop('cancelled');
    await Promise.all(all.map((p) => p.done));
  }

  /**
   * Runs a program from an argv-only line (the auth hook): no shell, scrubbed environment plus
   * `env`, a time limit, in a sandbox with none of the served files: only the program and the
   * existing files the line names by absolute path (a script for an interpreter), read-only.
   * Returns the exit code and the first 64 KiB of stdout.
   */
  async runArgv(line: string, env: Record<string, string>, timeoutMs: number, settings: SharedSettings): Promise<{ code: number; stdout: string }> {
    const argv = await parseArgv(line);
    const file = await resolveProgram(argv[0]);
    let stdout = '';
    const limits = { timeoutMs, maxOutputBytes: 1024 * 1024 };
    const named = argv.slice(1).filter((a) => path.isAbsolute(a) && isPlainFile(a, this.gate));
    const spec = await this.spec(file, argv.slice(1), argv[0], '/', [file, ...named], { env: { ...this.env('/'), ...env }, settings, limits });
    const proc = new RunningProcess(spec, {
      line: (l, stream) => {
        if (stream === 'stdout' && stdout.length < 64 * 1024) stdout += `${l}\n`;
      },
    });
    this.running.add(proc);
    const result = await proc.done;
    this.running.delete(proc);
    return { code: result.reason || result.error ? -1 : result.code, stdout };
  }

  /** Logs a finished run. */
  logResult(what: string, result: ProcessResult): void {
    const how = result.error ? `could not start (${result.error})` : `exit ${result.code}${result.reason ? ` (${result.reason})` : ''}`;
    this.log.info(`${what}: ${how}`);
  }
}

/** A regular file that is not one of fm's own. */
function isPlainFile(abs: string, gate: Gate): boolean {
  try {
    return statSync(abs).isFile() && !gate.isProtected(realPathSync(abs));
  } catch {
    return false;
  }
}

/** The sandbox limits of the settings. */
function sandboxLimits(s: SharedSettings): SandboxLimits {
  return { memory: s.execMaxMemory, fileSize: s.execMaxFileSize, processes: s.execMaxProcesses };
}

/**
 * Checks new settings for exec: the sandbox works (or fm runs unsandboxed) when exec or the
 * auth hook is turned on, a supported shell, no launcher newly added to the default
 * allowlist unless forced, and hook lines fm can run. Throws 400 with the reason.
 */
export async function validateExecSettings(next: Settings, current: SharedSettings, opts: AllowlistOptions = {}, sandbox?: Sandbox): Promise<void> {
  if (sandbox && ((next.enableExec && !current.enableExec) || (next.authMethod === 'hook' && current.authMethod !== 'hook'))) {
    const refusal = await sandbox.refusal();
    if (refusal) throw new BadRequestError(`${next.enableExec && !current.enableExec ? 'enableExec' : 'authMethod hook'}: ${refusal}`);
  }
  checkShellSetting(next.shell);
  if (next.shell.length) {
    await resolveProgram(next.shell[0]).catch((err: Error) => {
      throw new BadRequestError(`shell: ${err.message}`);
    });
  }
  checkAllowlist(next.defaults.commands, current.defaults.commands, Boolean(opts.allowLaunchers), 'defaults.commands');
  for (const trigger of HOOK_TRIGGERS) {
    const before = new Set(current.commands[trigger] ?? []);
    for (const line of next.commands[trigger] ?? []) {
      if (before.has(line) && current.shell.join(' ') === next.shell.join(' ')) continue;
      try {
        const { cmds } = await checkLineShape(line, { purpose: 'hook', shell: next.shell });
        for (const c of cmds) await resolveProgram(c.words[0].value);
      } catch (err) {
        if (err instanceof CommandRefusedError) throw new BadRequestError(`commands.${trigger}: "${line}": ${err.message}`);
        throw err;
      }
    }
  }
}
