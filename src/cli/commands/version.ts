import { Command } from 'commander';
import { action, output } from '../run.ts';
import { VERSION } from '../../version.ts';

export function versionCommand(): Command {
  return new Command('version').description('print the version').action(
    action((_opts: unknown, cmd: Command) => {
      output(cmd, { version: VERSION }, () => `fm v${VERSION}`);
    }),
  );
}
