/**
 * Event hooks (settings.commands before_/after_ × upload, save, rename, copy, delete).
 * Operations call `hooks.around(...)` through this one interface; the command runner module
 * provides the implementation that actually runs programs. Hooks only run when exec is enabled.
 */
import type { HookEvent } from '../api/settings.ts';
import type { UserRecord } from '../storage/repos/users.ts';

export type { HookEvent };

export interface HookContext {
  event: HookEvent;
  user: UserRecord;
  /** Absolute path of the file the operation is about. */
  file: string;
  /** Absolute destination for copy and rename; the user's scope folder otherwise. */
  destination?: string;
  /** Absolute path of the user's scope folder. */
  scope: string;
}

export interface HookRunner {
  /**
   * Runs `before_<event>` hooks, then `operation`, then `after_<event>` hooks. A failing before
   * hook throws a 403 and the operation does not run; a failing after hook is only logged.
   */
  around<T>(ctx: HookContext, operation: () => Promise<T>): Promise<T>;
}
