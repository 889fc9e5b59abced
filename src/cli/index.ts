/** The fm command tree. Actions live one file per group under commands/. */
import { Command, CommanderError, Option } from 'commander';
import { ExitError } from './run.ts';
import { serveCommand } from './commands/serve.ts';
import { usersCommand } from './commands/users.ts';
import { sharesCommand } from './commands/shares.ts';
import { hashCommand } from './commands/hash.ts';
import { versionCommand } from './commands/version.ts';
import { VERSION } from '../version.ts';

export function buildProgram(): Command {
  const program = new Command('fm')
    .description('a self-hosted web file manager')
    .version(VERSION, '-v, --version', 'print the version')
    .addOption(new Option('-d, --database <file>', 'database file (default: $XDG_DATA_HOME/fm/fm.db)').env('FM_DATABASE'))
    .option('--json', 'print machine-readable JSON')
    .showSuggestionAfterError()
    .addCommand(serveCommand())
    .addCommand(usersCommand())
    .addCommand(sharesCommand())
    .addCommand(hashCommand())
    .addCommand(versionCommand());
  return program;
}

/** Applies exitOverride to a command tree so commander throws instead of exiting. */
function overrideExits(cmd: Command): void {
  cmd.exitOverride();
  for (const sub of cmd.commands) overrideExits(sub);
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  overrideExits(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof ExitError) {
      process.stderr.write(`fm: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`fm: ${(err as Error)?.message ?? String(err)}\n`);
    return 1;
  }
}

