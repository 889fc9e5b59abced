/** `fm users ...`: user administration on the database a server may be using. */
import { Command } from 'commander';
import { action, cliActor, output, readInput, withServices, writeOutput } from '../run.ts';
import { ConflictError, NotFoundError, UsageError } from '../../errors.ts';
import type { UserRecord } from '../../storage/repos/users.ts';
import type { Repos } from '../../services/context.ts';
import { keyValues, table } from '../table.ts';
import { formatSize } from '../../api/size.ts';
import { askNewPassword, confirmDestructive, readPasswordFromStdin } from '../prompt.ts';
import { addLockPasswordOption, addUserTemplateOptions, FLAG_PERMISSIONS, userChanges, type UserFlagValues } from '../userflags.ts';

interface AddOptions extends UserFlagValues {
  passwordHash?: string;
  passwordStdin?: boolean;
  force?: boolean;
}

interface UpdateOptions extends UserFlagValues {
  username?: string;
  password?: string | true;
  passwordStdin?: boolean;
  force?: boolean;
  reset2fa?: boolean;
}

export function usersCommand(): Command {
  const users = new Command('users').description('manage users');

  const add = users
    .command('add')
    .description('add a user (options not given come from the defaults for new users)')
    .argument('<username>', 'the new user name')
    .argument('[password]', 'the password (asked on a terminal when left out)')
    .option('--password-hash <hash>', 'set this bcrypt hash (see fm hash) instead of a password')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option('--force', 'accept programs that launch other programs (sh, env, python ...) in --commands');
  addUserTemplateOptions(add);
  addLockPasswordOption(add)
    .addHelpText(
      'after',
      `
Examples:
  fm users add alice                          ask for the password (on a terminal)
  fm users add alice "a long passphrase" --scope /alice --no-perm-delete
  printf '%s\\n' "$PW" | fm users add bob --password-stdin --admin
  fm users add carol --password-hash "$(fm hash 'a long passphrase')"
  fm users add dave --quota 10GiB --quota-files 100000`,
    )
    .action(
      action(async (username: string, password: string | undefined, opts: AddOptions, cmd: Command) => {
        if (!username.trim()) throw new UsageError('the username is empty');
        const given = [password !== undefined, opts.passwordHash !== undefined, Boolean(opts.passwordStdin)].filter(Boolean).length;
        if (given > 1) throw new UsageError('give the password one way only: argument, --password-hash or --password-stdin');
        await withServices(
          cmd,
          async (services) => {
            const { presentUserForConsole } = await import('../../server/present.ts');
            const settings = await services.repos.settings.editable();
            if (await services.repos.users.getByUsername(username)) throw new ConflictError(`user "${username.trim()}" already exists`);
            let secret = password ?? opts.passwordHash;
            if (opts.passwordStdin) secret = readPasswordFromStdin();
            secret ??= await askNewPassword(`"${username}"`);
            const changes = userChanges({ ...settings.defaults, lockPassword: false }, opts);
            const user = await services.users.create(
              { data: { ...changes, username, password: secret }, passwordIsHash: opts.passwordHash !== undefined },
              settings,
              { allowLaunchers: Boolean(opts.force) },
            );
            output(cmd, presentUserForConsole(user), () => `added user "${user.username}" (id ${user.id})`);
          },
          { createWithDefaults: true },
        );
      }),
    );

  users
    .command('ls')
    .alias('list')
    .description('list users')
    .addHelpText('after', "\nExamples:\n  fm users ls\n  fm users ls --json | jq -r '.[] | select(.perm.admin) | .username'")
    .action(
      action(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { presentUserForConsole } = await import('../../server/present.ts');
          const list = await services.repos.users.list();
          output(cmd, list.map(presentUserForConsole), () =>
            table(
              ['ID', 'USERNAME', 'SCOPE', 'LOCALE', 'ADMIN', 'LOCKED', 'PERMISSIONS'],
              list.map((u) => [u.id, u.username, u.scope, u.locale, u.perm.admin, u.lockPassword, permList(u)]),
            ),
          );
        });
      }),
    );

  users
    .command('find')
    .description('show one user')
    .argument('<user>', 'id or username')
    .addHelpText('after', '\nExamples:\n  fm users find alice\n  fm users find 3 --json')
    .action(
      action(async (who: string, _opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { presentUserForConsole } = await import('../../server/present.ts');
          const u = await findUser(services.repos, who);
          output(cmd, presentUserForConsole(u), () => describeUser(u));
        });
      }),
    );

  const update = users
    .command('update')
    .description('change a user (only the options given)')
    .argument('<user>', 'id or username')
    .option('-u, --username <name>', 'rename the user')
    .option('-p, --password [password]', 'set a new password (asked on a terminal when no value is given)')
    .option('--password-stdin', 'read the new password from the first line of standard input')
    .option('--reset-2fa', 'turn two-factor login off (a locked-out user; the password alone signs in, and the policy asks to enrol again)')
    .option('--force', 'accept programs that launch other programs (sh, env, python ...) in --commands');
  addUserTemplateOptions(update);
  addLockPasswordOption(update)
    .addHelpText(
      'after',
      `
Examples:
  fm users update alice --admin
  fm users update 3 --no-perm-share --no-perm-delete --scope /projects
  fm users update bob --password              ask for a new password (on a terminal)
  fm users update bob --commands "git,ls"     only these commands (exec must be enabled)
  fm users update bob --reset-2fa             bob lost his phone and his recovery codes
  fm users update bob --quota 0               no byte quota any more`,
    )
    .action(
      action(async (who: string, opts: UpdateOptions, cmd: Command) => {
        if (opts.password !== undefined && opts.passwordStdin) throw new UsageError('give the password one way only: --password or --password-stdin');
        await withServices(cmd, async (services) => {
          const { presentUserForConsole } = await import('../../server/present.ts');
          const target = await findUser(services.repos, who);
          const changes: Record<string, unknown> = { ...userChanges(target, opts) };
          if (opts.username !== undefined) changes.username = opts.username;
          let password: string | undefined;
          if (opts.passwordStdin) password = readPasswordFromStdin();
          else if (opts.password === true) password = await askNewPassword(`"${target.username}"`);
          else if (typeof opts.password === 'string') password = opts.password;
          if (password !== undefined) {
            if (!password) throw new UsageError('the new password is empty');
            changes.password = password;
          }
          const which = Object.keys(changes);
          if (which.length === 0 && !opts.reset2fa) throw new UsageError('nothing to update: give at least one option (see fm users update --help)');
          const updated = which.length
            ? await services.users.update(cliActor(), target.id, { what: 'user', which, data: changes }, false, { allowLaunchers: Boolean(opts.force) })
            : target;
          const reset = opts.reset2fa ? await services.totp.disable(target.id) : false;
          const note = opts.reset2fa ? (reset ? '; two-factor login turned off' : '; two-factor login was not on') : '';
          output(cmd, presentUserForConsole(updated), () => `updated user "${updated.username}" (id ${updated.id})${note}`);
        });
      }),
    );

  users
    .command('rm')
    .alias('remove')
    .description('delete a user (never the last admin)')
    .argument('<user>', 'id or username')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  fm users rm bob\n  fm users rm 7 --yes')
    .action(
      action(async (who: string, opts: { yes?: boolean }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { presentUserForConsole } = await import('../../server/present.ts');
          const target = await findUser(services.repos, who);
          await confirmDestructive(`Delete user "${target.username}" (id ${target.id})?`, opts.yes);
          const removed = await services.users.remove(cliActor(), target.id, undefined, false);
          await services.onUserDeleted?.(removed);
          output(cmd, presentUserForConsole(removed), () => `deleted user "${removed.username}" (id ${removed.id})`);
        });
      }),
    );

  users
    .command('export')
    .description('write every user, password hashes included, as JSON (or YAML for .yml/.yaml)')
    .argument('<file>', 'file to write (mode 0600), or - for standard output')
    .addHelpText('after', '\nExamples:\n  fm users export users.json\n  fm users export - | jq length')
    .action(
      action(async (file: string, _opts: unknown, cmd: Command) => {
        const { exportUsers, serialiseDocument } = await import('../transfer.ts');
        await withServices(cmd, async (services) => {
          const list = await services.repos.users.list();
          writeOutput(file, serialiseDocument(exportUsers(list), file));
          if (file !== '-') output(cmd, { file, users: list.length }, () => `exported ${list.length} users to ${file}`);
        });
      }),
    );

  users
    .command('import')
    .description('import users from an fm or filebrowser export; all or nothing')
    .argument('<file>', 'file to read, or - for standard input')
    .option('--overwrite', 'replace existing users that have the same id')
    .option('--replace', 'delete every existing user first')
    .option('--force', 'accept programs that launch other programs (sh, env, python ...) in commands')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      `
Users keep their ids when they are free. Without --overwrite or --replace, an id that is
already taken is an error. The import is refused, and nothing changes, when any user is
invalid, two users share a name, or no admin would be left.

Examples:
  fm users import users.json --replace            move the users of another instance here
  filebrowser users export fb.json && fm users import fb.json --replace`,
    )
    .action(
      action(async (file: string, opts: { overwrite?: boolean; replace?: boolean; force?: boolean; yes?: boolean }, cmd: Command) => {
        const { parseDocument, parseUsersImport, planImport } = await import('../transfer.ts');
        const data = parseDocument(readInput(file), file === '-' ? 'standard input' : file);
        await withServices(cmd, async (services) => {
          const settings = await services.repos.settings.editable();
          const incoming = parseUsersImport(data, settings.defaults);
          for (const u of incoming) {
            if (u.commands.length) await services.users.validateCommands?.(u.commands, { allowLaunchers: Boolean(opts.force) });
          }
          const current = await services.repos.users.list();
          const plan = planImport(current, incoming, { overwrite: Boolean(opts.overwrite), replace: Boolean(opts.replace) });
          if (opts.replace) await confirmDestructive(`Replace all ${current.length} users with the ${incoming.length} users of ${file}?`, opts.yes);
          else if (plan.overwritten > 0) await confirmDestructive(`Overwrite ${plan.overwritten} existing users?`, opts.yes);
          await services.repos.users.replaceAll(plan.records);
          output(
            cmd,
            { imported: incoming.length, overwritten: plan.overwritten, total: plan.records.length },
            () => `imported ${incoming.length} users${plan.overwritten ? ` (${plan.overwritten} overwritten)` : ''}; ${plan.records.length} users in total`,
          );
        });
      }),
    );

  return users;
}

/** Finds a user by id or name; `user "bob" not found` otherwise. */
export async function findUser(repos: Repos, who: string): Promise<UserRecord> {
  const u = await repos.users.find(who);
  if (!u) throw new NotFoundError(`user "${who}" not found`);
  return u;
}

function permList(u: UserRecord): string {
  if (u.perm.admin) return 'all';
  const list = FLAG_PERMISSIONS.filter((p) => u.perm[p]);
  return list.length ? list.join(',') : '-';
}

function describeUser(u: UserRecord): string {
  return keyValues([
    ['id', u.id],
    ['username', u.username],
    ['scope', u.scope],
    ['locale', u.locale || '(browser)'],
    ['admin', u.perm.admin],
    ['permissions', permList(u)],
    ['commands', u.commands.join(' ') || '-'],
    ['lock password', u.lockPassword],
    ['view mode', u.viewMode],
    ['single click', u.singleClick],
    ['redirect after copy/move', u.redirectAfterCopyMove],
    ['hide dotfiles', u.hideDotfiles],
    ['date format', u.dateFormat],
    ['sorting', `${u.sorting.by} ${u.sorting.asc ? 'ascending' : 'descending'}`],
    ['quota', u.quota ? formatSize(u.quota) : '-'],
    ['quota files', u.quotaFiles || '-'],
    ['rules', u.rules.length ? `${u.rules.length} (fm rules ls --user ${u.id})` : '-'],
  ]);
}
