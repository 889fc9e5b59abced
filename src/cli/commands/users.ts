/** `fm users ...`: user administration on the database a server may be using. */
import { Command, Option } from 'commander';
import { action, output, withDatabase } from '../run.ts';
import { UsageError } from '../../errors.ts';
import type { UserRecord } from '../../storage/repos/users.ts';

interface AddOptions {
  admin?: boolean;
  scope?: string;
  locale?: string;
}

export function usersCommand(): Command {
  const users = new Command('users').description('manage users');

  users
    .command('add')
    .description('add a user')
    .argument('<username>', 'the new user name')
    .argument('<password>', 'the password (checked against the password policy)')
    .option('--admin', 'give the user every permission, admin included')
    .addOption(new Option('--scope <dir>', 'folder under the root the user sees as /'))
    .addOption(new Option('--locale <locale>', 'interface language, e.g. en, de, ar'))
    .addHelpText('after', '\nExample:\n  fm users add alice "a long passphrase" --scope /alice')
    .action(
      action(async (username: string, password: string, opts: AddOptions, cmd: Command) => {
        await withDatabase(cmd, async (db) => {
          const { createRepos } = await import('../../services/context.ts');
          const { UserService, allPermissions } = await import('../../services/users.ts');
          const { ensureSettings } = await import('../../services/setup.ts');
          const repos = createRepos(db);
          const settings = await ensureSettings(repos);
          const service = new UserService(repos);
          if (!username.trim()) throw new UsageError('username is empty');
          const user = await service.create(
            {
              data: {
                username,
                password,
                ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
                ...(opts.locale ? { locale: opts.locale } : {}),
                ...(opts.admin ? { perm: allPermissions() } : {}),
              },
            },
            settings,
          );
          output(cmd, publicUser(user), () => `added user ${user.username} (id ${user.id})`);
        });
      }),
    );

  return users;
}

/** A user as the CLI prints it: no password hash, no bookkeeping. */
export function publicUser(u: UserRecord) {
  const { password: _p, sessionEpoch: _e, updatedAt: _u, ...rest } = u;
  return rest;
}
