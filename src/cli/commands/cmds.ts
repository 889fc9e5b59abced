/** `fm cmds ...`: the event commands (hooks) run before and after file operations. */
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { HOOK_TRIGGERS } from '../../api/settings.ts';
import { UsageError } from '../../errors.ts';
import { action, output, withServices } from '../run.ts';
import { confirmDestructive } from '../prompt.ts';
import { table } from '../table.ts';

function parseIndex(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`expected an index (0, 1, ...), got "${raw}"`);
  return Number(raw);
}

export function cmdsCommand(): Command {
  const cmds = new Command('cmds').description('manage event commands (hooks) run before and after file operations');

  cmds
    .command('ls')
    .alias('list')
    .description('list event commands')
    .addOption(new Option('-e, --event <event>', 'only this event').choices(HOOK_TRIGGERS))
    .addHelpText('after', `\nEvents: ${HOOK_TRIGGERS.join(', ')}\n\nExamples:\n  fm cmds ls\n  fm cmds ls --event after_upload --json`)
    .action(
      action(async (opts: { event?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { commands } = await services.repos.settings.get();
          const events = opts.event ? [opts.event] : Object.keys(commands);
          const rows = events.flatMap((e) => (commands[e] ?? []).map((c, i) => [e, i, c] as [string, number, string]));
          const json = opts.event ? (commands[opts.event] ?? []) : commands;
          output(cmd, json, () => (rows.length ? table(['EVENT', 'INDEX', 'COMMAND'], rows) : 'no event commands'));
        });
      }),
    );

  cmds
    .command('add')
    .description('add a command to run on an event')
    .addArgument(new Argument('<event>', 'the event').choices(HOOK_TRIGGERS))
    .argument('<command...>', 'the command line (put -- before it when it has options)')
    .option('--force', 'accept programs that launch other programs (sh, env, python ...)')
    .addHelpText(
      'after',
      `
The command runs without a shell (unless one is configured with fm config set --shell),
only when command execution is enabled (fm config set --exec). It gets FILE, DESTINATION,
SCOPE, TRIGGER and USERNAME in its environment. A failing before_ command stops the operation.

Examples:
  fm cmds add after_upload /usr/local/bin/scan-upload
  fm cmds add before_delete -- /usr/local/bin/backup --quiet`,
    )
    .action(
      action(async (event: string, words: string[], opts: { force?: boolean }, cmd: Command) => {
        const line = words.join(' ').trim();
        if (!line) throw new UsageError('the command is empty');
        await withServices(cmd, async (services) => {
          const { saveSettings } = await import('../../services/settings.ts');
          const s = await services.repos.settings.get();
          const list = [...(s.commands[event] ?? []), line];
          await saveSettings(services, { ...s, commands: { ...s.commands, [event]: list } }, { allowLaunchers: Boolean(opts.force) });
          output(cmd, list, () => `added ${event} command ${list.length - 1}: ${line}`);
        });
      }),
    );

  cmds
    .command('rm')
    .alias('remove')
    .description('remove an event command, or those from <index> to [end]')
    .addArgument(new Argument('<event>', 'the event').choices(HOOK_TRIGGERS))
    .argument('<index>', 'index as fm cmds ls shows it', parseIndex)
    .argument('[end]', 'last index of a range to remove', parseIndex)
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  fm cmds rm after_upload 0\n  fm cmds rm before_copy 0 2 --yes')
    .action(
      action(async (event: string, index: number, end: number | undefined, opts: { yes?: boolean }, cmd: Command) => {
        const last = end ?? index;
        if (last < index) throw new UsageError(`the end index ${last} is before the start index ${index}`);
        await withServices(cmd, async (services) => {
          const { saveSettings } = await import('../../services/settings.ts');
          const s = await services.repos.settings.get();
          const current = s.commands[event] ?? [];
          if (last >= current.length) {
            throw new UsageError(`there is no ${event} command ${last} (${current.length === 0 ? 'there are none' : `indexes 0 to ${current.length - 1}`})`);
          }
          const removed = current.slice(index, last + 1);
          await confirmDestructive(`Remove ${event} ${removed.length === 1 ? 'command' : 'commands'} ${removed.map((c) => `"${c}"`).join(', ')}?`, opts.yes);
          const list = [...current.slice(0, index), ...current.slice(last + 1)];
          await saveSettings(services, { ...s, commands: { ...s.commands, [event]: list } });
          output(cmd, list, () => `removed ${removed.length} ${event} ${removed.length === 1 ? 'command' : 'commands'}`);
        });
      }),
    );

  return cmds;
}
