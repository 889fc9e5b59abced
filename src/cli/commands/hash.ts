import { Command } from 'commander';
import { action, output } from '../run.ts';

export function hashCommand(): Command {
  return new Command('hash')
    .description('print the bcrypt hash of a password')
    .argument('<password>', 'the password to hash')
    .addHelpText('after', '\nExample:\n  fm hash "correct horse battery staple"')
    .action(
      action(async (password: string, _opts: unknown, cmd: Command) => {
        const { hashPassword } = await import('../../services/passwords.ts');
        const hash = await hashPassword(password);
        output(cmd, { hash }, () => hash);
      }),
    );
}
