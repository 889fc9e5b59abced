/**
 * What an `fm` command changed goes into the audit log, as the API's changes do: the same
 * action names, the actor "(fm cli: <system user>)", the exit code as the status, and as detail
 * the command, its first argument (a user, link, token or trash item) and the names of the
 * options given — never their values, which may be passwords or secrets.
 */
import os from 'node:os';
import type { Command } from 'commander';
import type { AuditAction } from '../api/audit.ts';
import type { Services } from '../services/index.ts';

/** The commands that change something, by their path below `fm`. Reading ones are not recorded. */
const ACTIONS: Record<string, AuditAction> = {
  'users add': 'user-change',
  'users update': 'user-change',
  'users rm': 'user-change',
  'users import': 'user-change',
  'tokens add': 'user-change',
  'tokens rm': 'user-change',
  'config init': 'settings-change',
  'config set': 'settings-change',
  'config import': 'settings-change',
  'rules add': 'settings-change',
  'rules rm': 'settings-change',
  'cmds add': 'settings-change',
  'cmds rm': 'settings-change',
  'shares rm': 'share-delete',
  'trash restore': 'restore',
  'trash rm': 'delete',
  'trash empty': 'delete',
};

/** `users update` for the command `fm users update …`. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The command, its first argument and the flags given on the command line (not their values). */
export function cliDetail(cmd: Command): string {
  const flags = cmd.options.filter((o) => cmd.getOptionValueSource(o.attributeName()) === 'cli').map((o) => o.long ?? o.short ?? o.attributeName());
  const first = cmd.args[0];
  return `fm ${commandPath(cmd)}${first !== undefined ? ` ${first}` : ''}${flags.length ? ` (${flags.join(', ')})` : ''}`;
}

function systemUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return String(process.getuid?.() ?? '?');
  }
}

/** Records a changing command's outcome (exit code 0, or the failure's); nothing for the others. */
export function recordCliChange(services: Services, cmd: Command, exitCode: number): void {
  const action = ACTIONS[commandPath(cmd)];
  if (!action) return;
  services.audit.record({ action, actor: `(fm cli: ${systemUser()})`, detail: cliDetail(cmd), status: exitCode });
}
