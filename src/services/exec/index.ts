/**
 * Command execution: the runner behind `GET /api/command/{path}`, the event hooks and the auth
 * hook all go through here. See docs/exec.md for what is refused and why.
 */
import type { AllowlistOptions } from '../settings.ts';
import { FmError } from '../../errors.ts';
import type { Settings } from '../../api/settings.ts';
import { HOOK_TRIGGERS } from '../../api/settings.ts';
import { BadRequestError } from '../../errors.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { Logger } from '../context.ts';
import type { Access, Gate } from '../files/gate.ts';
import { checkAllowlist, checkShellSetting } from './launchers.ts';
import { checkLineShape, parseArgv, planCommand, resolveProgram, type Plan } from './plan.ts';
import { DEFAULT_LIMITS, RunningProcess, scrubbedEnv, type ExecLimits, type OutputSink, type ProcessResult } from './process.ts';
import { CommandRefusedError } from './syntax.ts';

export { CommandRefusedError } from './syntax.ts';
export { checkAllowlist, checkShellSetting, isLauncher, launcherReason } from './launchers.ts';
export { DEFAULT_LIMITS, SAFE_PATH, scrubbedEnv, type ExecLimits, type ProcessResult, type RunningProcess } from './process.ts';
export { parseArgv, type Plan } from './plan.ts';

export class ExecService {
  private readonly running = new Set<RunningProcess>();

  constructor(
    private readonly gate: Gate,
    private readonly log: Logger,
    readonly limits: ExecLimits = DEFAULT_LIMITS,
  ) {}

  /**
   * Checks a user's command line for a folder (virtual path in `access`): exec enabled, the
   * execute permission, the folder through the gate, then the line itself (plan.ts).
   * Throws CommandRefusedError with the reason.
   */
  async prepareRun(user: UserRecord, settings: Settings, access: Access, folder: string, line: string): Promise<Plan> {
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

  /** Starts a checked plan; the process is stopped by `closeAll` at shutdown. */
  start(plan: Plan, env: Record<string, string>, sink: OutputSink, limits: ExecLimits = this.limits): RunningProcess {
    const proc = new RunningProcess({ file: plan.file, args: plan.args, argv0: plan.argv0, cwd: plan.cwd, env, limits }, sink);
    this.running.add(proc);
    void proc.done.then(() => this.running.delete(proc));
    return proc;
  }

  /** Stops every running command and hook (server shutdown). */
  async closeAll(): Promise<void> {
    const all = [...this.running];
    for (const p of all) p.stop('cancelled');
    await Promise.all(all.map((p) => p.done));
  }

  /**
   * Runs a program from an argv-only line (the auth hook): no shell, scrubbed environment plus
   * `env`, a time limit; returns the exit code and the first 64 KiB of stdout.
   */
  static async runArgv(line: string, env: Record<string, string>, timeoutMs: number): Promise<{ code: number; stdout: string }> {
    const argv = await parseArgv(line);
    const file = await resolveProgram(argv[0]);
    let stdout = '';
    const proc = new RunningProcess(
      { file, args: argv.slice(1), argv0: argv[0], cwd: process.cwd(), env: { ...scrubbedEnv('/'), ...env }, limits: { timeoutMs, maxOutputBytes: 1024 * 1024 } },
      {
        line: (l, stream) => {
          if (stream === 'stdout' && stdout.length < 64 * 1024) stdout += `${l}\n`;
        },
      },
    );
    const result = await proc.done;
    return { code: result.reason || result.error ? -1 : result.code, stdout };
  }

  /** Logs a finished run. */
  logResult(what: string, result: ProcessResult): void {
    const how = result.error ? `could not start (${result.error})` : `exit ${result.code}${result.reason ? ` (${result.reason})` : ''}`;
    this.log.info(`${what}: ${how}`);
  }
}

/**
 * Checks new settings for exec: a supported shell, no launcher newly added to the default
 * allowlist unless forced, and hook lines fm can run. Throws 400 with the reason.
 */
export async function validateExecSettings(next: Settings, current: Settings, opts: AllowlistOptions = {}): Promise<void> {
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
