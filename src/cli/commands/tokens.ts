/** `fm tokens add|ls|rm`: personal access tokens on the database a server may be using (changes apply at once). */
import { Command } from 'commander';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { cleanPath } from '../../services/files/paths.ts';
import { AccessTokenBodySchema } from '../../schemas/tokens.ts';
import { action, output, withServices } from '../run.ts';
import { confirmDestructive } from '../prompt.ts';
import { table } from '../table.ts';
import { findUser } from './users.ts';

const when = (seconds: number, none: string) => (seconds === 0 ? none : new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z'));

interface AddOptions {
  user: string;
  name: string;
  readOnly?: boolean;
  expires?: string;
  path?: string;
}

export function tokensCommand(): Command {
  const tokens = new Command('tokens').description('manage personal access tokens (Authorization: Bearer, WebDAV passwords)');

  tokens
    .command('add')
    .description('make a token for a user and print it: the only time it is shown')
    .requiredOption('--user <user>', 'the user the token acts as (id or username)')
    .requiredOption('--name <name>', 'what the token is for')
    .option('--read-only', 'reads only: every change is refused')
    .option('--expires <duration>', 'lifetime, e.g. 30d or 12h (at most 366d; default: no expiry)')
    .option('--path <folder>', "limit the token to this folder of the user's scope")
    .addHelpText(
      'after',
      '\nExamples:\n  fm tokens add --user alice --name backup --read-only --expires 90d\n  fm tokens add --user bob --name sync --path /photos --json',
    )
    .action(
      action(async (opts: AddOptions, cmd: Command) => {
        const parsed = AccessTokenBodySchema.safeParse({
          name: opts.name,
          expires: opts.expires ?? 0,
          readOnly: opts.readOnly ?? false,
          path: opts.path ?? '',
        });
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new BadRequestError(`--${issue.path[0] === 'readOnly' ? 'read-only' : String(issue.path[0])}: ${issue.message}`);
        }
        await withServices(cmd, async (services) => {
          const { presentAccessToken } = await import('../../server/present.ts');
          const user = await findUser(services.repos, opts.user);
          // The CLI serves no files: the gate checks the folder on every use of the token.
          const raw = parsed.data.path.trim();
          if (raw.split('/').includes('..')) throw new BadRequestError('--path: must not contain ..');
          const clean = cleanPath(raw || '/').path;
          const path = clean === '/' ? '' : clean;
          const { record, token } = await services.accessTokens.create(user, { ...parsed.data, path });
          output(cmd, { ...presentAccessToken(record, user.username), token }, () => token);
        });
      }),
    );

  tokens
    .command('ls')
    .alias('list')
    .description('list tokens, oldest first, without their secrets (expired tokens are removed)')
    .option('--user <user>', "only this user's tokens (id or username)")
    .addHelpText('after', '\nExamples:\n  fm tokens ls\n  fm tokens ls --user alice --json')
    .action(
      action(async (opts: { user?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { presentAccessToken } = await import('../../server/present.ts');
          const only = opts.user === undefined ? undefined : await findUser(services.repos, opts.user);
          const names = new Map((await services.users.list()).map((u) => [u.id, u.username]));
          const dtos = (await services.accessTokens.list(only?.id)).map((t) => presentAccessToken(t, names.get(t.userID) ?? ''));
          output(cmd, dtos, () =>
            dtos.length === 0
              ? 'no tokens'
              : table(
                  ['ID', 'USER', 'NAME', 'ACCESS', 'PATH', 'EXPIRES', 'LAST USED'],
                  dtos.map((d) => [
                    d.id,
                    d.username || `#${d.userID}`,
                    d.name,
                    d.readOnly ? 'read-only' : 'full',
                    d.path || '/',
                    when(d.expires, 'never'),
                    when(d.lastUsed, '-'),
                  ]),
                ),
          );
        });
      }),
    );

  tokens
    .command('rm')
    .alias('remove')
    .description('delete a token by its id; a running server refuses it at once')
    .argument('<id>', 'the token id, as fm tokens ls shows it')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExample:\n  fm tokens rm Xy12_ab-CD34 --yes')
    .action(
      action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const record = await services.repos.accessTokens.get(id);
          if (!record) throw new NotFoundError(`token "${id}" not found`);
          await confirmDestructive(`Delete the token ${record.id} (${record.name})?`, opts.yes);
          await services.accessTokens.remove(record.id);
          output(cmd, { deleted: record.id }, () => `deleted token ${record.id} (${record.name})`);
        });
      }),
    );

  return tokens;
}
