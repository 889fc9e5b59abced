/**
 * The event hooks (settings.commands `before_`/`after_` × upload, save, rename, copy, delete).
 * A hook line is checked and run like a user's command (plan.ts: argv only, or the checked
 * subset through the configured shell), minus the allowlist and argument checks: the admin
 * wrote it. It runs in a sandbox that mounts the whole served root read-write (fm's own files
 * masked), since a hook may work on any file the operation touches. FILE, DESTINATION, SCOPE, TRIGGER and USERNAME reach it only through its
 * environment; nothing is ever substituted into the line (filebrowser's GHSA-jvpw-637p-h3pw).
 */
import { ForbiddenError, FmError } from '../../errors.ts';
import type { SharedSettings } from '../../api/settings.ts';
import type { Logger, Repos } from '../context.ts';
import type { Access, Gate } from '../files/gate.ts';
import type { HookContext, HookRunner } from '../hooks.ts';
import type { ExecService } from './index.ts';
import { planCommand } from './plan.ts';
import { CommandRefusedError } from './syntax.ts';

export class ExecHookRunner implements HookRunner {
  constructor(
    private readonly repos: Repos,
    private readonly gate: Gate,
    private readonly exec: ExecService,
    private readonly log: Logger,
  ) {}

  async around<T>(ctx: HookContext, operation: () => Promise<T>): Promise<T> {
    const settings = await this.repos.settings.get();
    if (!settings.enableExec) return operation();
    // Blank lines are nothing to run (the UI drops them too).
    const before = (settings.commands[`before_${ctx.event}`] ?? []).filter((l) => l.trim());
    const after = (settings.commands[`after_${ctx.event}`] ?? []).filter((l) => l.trim());
    if (before.length === 0 && after.length === 0) return operation();
    let access: Access | undefined;
    const getAccess = async () => (access ??= await this.gate.access(ctx.user, settings));

    for (const line of before) await this.runHook(settings, ctx, `before_${ctx.event}`, line, getAccess, true);
    const result = await operation();
    for (const line of after) {
      try {
        await this.runHook(settings, ctx, `after_${ctx.event}`, line, getAccess, false);
      } catch (err) {
        // The operation has happened: an after hook never changes the response.
        this.log.error(`hook after_${ctx.event} (${ctx.user.username}): ${(err as Error).message}`);
      }
    }
    return result;
  }

  /**
   * Runs one hook line. A before hook that is refused, cannot start or exits non-zero throws
   * 403 with the first line of its stderr; an after hook only logs.
   */
  private async runHook(
    settings: SharedSettings,
    ctx: HookContext,
    trigger: string,
    line: string,
    getAccess: () => Promise<Access>,
    blocking: boolean,
  ): Promise<void> {
    const who = `hook ${trigger} (${ctx.user.username})`;
    const fail = (message: string): void => {
      if (blocking) throw new ForbiddenError(message);
      this.log.warn(`${who}: ${message}`);
    };
    let plan;
    try {
      const access = await getAccess();
      plan = await planCommand(line, { purpose: 'hook', shell: settings.shell, gate: this.gate, access, cwdVirtual: '/', cwd: access.rootReal });
    } catch (err) {
      if (err instanceof CommandRefusedError || err instanceof FmError) return fail(`${trigger} hook refused: ${err.message}`);
      throw err;
    }
    const env = this.exec.env(ctx.scope, {
      FILE: ctx.file,
      DESTINATION: ctx.destination ?? ctx.scope,
      SCOPE: ctx.scope,
      TRIGGER: trigger,
      USERNAME: ctx.user.username,
    });
    let firstError = '';
    let proc;
    try {
      proc = await this.exec.start(
        plan,
        { env, settings, tree: this.exec.hookTree() },
        {
          line: (text, stream) => {
            if (stream === 'stderr') {
              if (!firstError && text.trim()) firstError = text.trim();
              this.log.warn(`${who}: ${text}`);
            } else this.log.info(`${who}: ${text}`);
          },
        },
      );
    } catch (err) {
      if (err instanceof CommandRefusedError) return fail(`${trigger} hook refused: ${err.message}`);
      throw err;
    }
    if (plan.background) {
      void proc.done.then((r) => this.exec.logResult(`${who} in the background`, r));
      return;
    }
    const result = await proc.done;
    if (result.code === 0 && !result.error) return;
    // Its stderr is already in the log; add how it ended.
    this.exec.logResult(who, result);
    if (!blocking) return;
    const why = result.error ? `could not start (${result.error})` : result.reason ? `stopped: ${result.reason}` : `exit code ${result.code}`;
    fail(firstError || `${trigger} hook failed (${why})`);
  }
}
