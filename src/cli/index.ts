/** The fm command tree. Actions live one file per group under commands/. */
import { Command, CommanderError, Option } from 'commander';
import { toExitError } from './run.ts';
import { applyLayers, loadConfigFile, type FileValues } from './layers.ts';
import { serveCommand } from './commands/serve.ts';
import { VERSION } from '../version.ts';

/**
 * The other command groups (one file each under commands/), loaded only for a command line that does not start the
 * server: their modules import zod schemas (tokens, audit) and helpers that `fm serve` never runs before it listens.
 */
const OTHER_GROUPS: Array<() => Promise<() => Command>> = [
  async () => (await import('./commands/users.ts')).usersCommand,
  async () => (await import('./commands/config.ts')).configCommand,
  async () => (await import('./commands/rules.ts')).rulesCommand,
  async () => (await import('./commands/cmds.ts')).cmdsCommand,
  async () => (await import('./commands/shares.ts')).sharesCommand,
  async () => (await import('./commands/tokens.ts')).tokensCommand,
  async () => (await import('./commands/hash.ts')).hashCommand,
  async () => (await import('./commands/version.ts')).versionCommand,
  async () => (await import('./commands/completion.ts')).completionCommand,
  async () => (await import('./commands/trash.ts')).trashCommand,
  async () => (await import('./commands/audit.ts')).auditCommand,
  async () => (await import('./commands/db.ts')).dbCommand,
];

/** The program's options that take a value, which the first word of a command line may follow. */
const VALUE_OPTIONS = new Set(['-d', '--database', '-c', '--config']);

/**
 * Whether a command line (without `node fm`) runs `fm serve`: its first word, after the program's
 * options, is `serve`, and no help or version is asked for before it. The server then loads and builds
 * only its own command: the other groups' options and help were ~4 ms of every start.
 */
export function startsServer(args: string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (['-h', '--help', '-v', '--version'].includes(arg)) return false;
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith('-')) return arg === 'serve';
  }
  return false;
}

/** fm's command tree; `args`, the command line, only to build just `serve` when it starts the server. */
export async function buildProgram(args: string[] = []): Promise<Command> {
  const program = new Command('fm')
    .description('a self-hosted web file manager')
    .version(VERSION, '-v, --version', 'print the version')
    .addOption(new Option('-d, --database <file|url>', 'database: a SQLite file (default: $XDG_DATA_HOME/fm/fm.db) or a postgres:// URL').env('FM_DATABASE'))
    .addOption(new Option('-c, --config <file>', 'read option values from this YAML or JSON file').env('FM_CONFIG'))
    .option('--json', 'print machine-readable JSON')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      `
Every option can also be set as FM_<NAME> in the environment (--tus-chunk-size is
FM_TUS_CHUNK_SIZE) or as a key of the --config file; a flag wins over the environment,
which wins over the file, which wins over the database.

Examples:
  fm serve /srv/files                  serve a folder on http://127.0.0.1:8080
  fm users add alice --scope /alice    add a user (asks for the password)
  fm config set --signup --create-user-dir
  fm rules add /private                hide /private from every user
  man fm                               the manual`,
    );
  const others = startsServer(args) ? [] : await Promise.all(OTHER_GROUPS.map((load) => load()));
  for (const group of [serveCommand, ...others]) program.addCommand(group());
  program.hook('preAction', async (_program, actionCommand) => {
    const file = actionCommand.optsWithGlobals<{ config?: string }>().config;
    const values: FileValues = file ? await loadConfigFile(file) : new Map();
    applyLayers(actionCommand, process.env, values);
  });
  return program;
}

/** Makes commander throw instead of exiting, and prints its errors as `fm: ...` lines. */
function configure(cmd: Command): void {
  cmd.exitOverride();
  cmd.configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'fm: ')) });
  cmd.configureHelp({ showGlobalOptions: true });
  for (const sub of cmd.commands) configure(sub);
}

export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv.slice(2));
  configure(program);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    // Commander printed the help, the version or the usage error already.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    const exit = toExitError(err);
    process.stderr.write(`fm: ${exit.message}\n`);
    return exit.exitCode;
  }
}
