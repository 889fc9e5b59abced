/** `fm completion <shell>`: prints a completion script generated from the command tree. */
import { Argument, Command } from 'commander';
import { action } from '../run.ts';
import { completionScript, SHELLS, type Shell } from '../completion.ts';

export function completionCommand(): Command {
  return new Command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  source <(fm completion bash)                  in ~/.bashrc
  fm completion zsh > "\${fpath[1]}/_fm"        then restart zsh
  fm completion fish > ~/.config/fish/completions/fm.fish`,
    )
    .action(
      action((shell: Shell, _opts: unknown, cmd: Command) => {
        let root = cmd;
        while (root.parent) root = root.parent;
        process.stdout.write(completionScript(root, shell));
      }),
    );
}
