/**
 * `fm trash ls|restore|rm|empty`: users' trash on the served root (docs/trash.md). The trash
 * lives in the root, not the database, so these commands take the root as `fm serve` does
 * (`--root`, FM_ROOT, else the current folder).
 */
import path from 'node:path';
import { Command, Option } from 'commander';
import { formatSize } from '../../api/size.ts';
import type { TrashItem } from '../../api/trash.ts';
import { NotFoundError, UsageError } from '../../errors.ts';
import { realPath, stat } from '../../services/files/disk/lookup.ts';
import type { Services } from '../../services/index.ts';
import { confirmDestructive } from '../prompt.ts';
import { action, output, withServices } from '../run.ts';
import { table } from '../table.ts';
import { findUser } from './users.ts';

/** The served root these commands act on, real and checked. */
async function rootOf(cmd: Command): Promise<string> {
  const root = path.resolve(cmd.optsWithGlobals<{ root?: string }>().root ?? '.');
  const isDir = await stat(root).then(
    (st) => st.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`root ${root} is not a folder`);
  return realPath(root);
}

const withRoot = async <T>(cmd: Command, fn: (services: Services) => Promise<T>) => withServices(cmd, fn, { root: await rootOf(cmd) });

/** The owner of an item (ids are unique across users). */
async function ownerOf(services: Services, id: string) {
  const user = await services.repos.users.get(await services.trash.ownerOf(id));
  if (!user) throw new NotFoundError(`the owner of ${id} no longer exists`);
  return user;
}

export function trashCommand(): Command {
  const trash = new Command('trash').description("users' trash: deleted items kept for restoring (see fm config set --trash-retention)");
  const rootOption = () => new Option('-r, --root <dir>', 'the folder fm serves (default: the current folder)').env('FM_ROOT');

  trash
    .command('ls')
    .alias('list')
    .description("list a user's trash, newest first")
    .requiredOption('--user <user>', 'whose trash (id or username)')
    .addOption(rootOption())
    .addHelpText('after', '\nExamples:\n  fm trash ls --user alice --root /srv/files\n  fm trash ls --user alice --json')
    .action(
      action(async (opts: { user: string }, cmd: Command) => {
        await withRoot(cmd, async (services) => {
          const items: TrashItem[] = await services.trash.list(await findUser(services.repos, opts.user));
          output(cmd, items, () =>
            items.length === 0
              ? 'the trash is empty'
              : table(
                  ['ID', 'NAME', 'PATH', 'DELETED', 'SIZE'],
                  items.map((i) => [i.id, i.name, i.path || '-', i.deleted.replace(/\.\d+Z$/, 'Z'), formatSize(i.size)]),
                ),
          );
        });
      }),
    );

  trash
    .command('restore')
    .description("put an item back where it was, with its owner's access (a clash fails unless --rename or --override)")
    .argument('<id>', 'the item id, as fm trash ls shows it')
    .option('--rename', 'on a clash, restore as "name (1).ext"')
    .option('--override', 'on a clash, replace what is there (it goes to the trash)')
    .addOption(rootOption())
    .addHelpText('after', '\nExample:\n  fm trash restore 3f9a0c1b2d4e5f6a7b --rename')
    .action(
      action(async (id: string, opts: { rename?: boolean; override?: boolean }, cmd: Command) => {
        if (opts.rename && opts.override) throw new UsageError('--rename and --override cannot be combined');
        await withRoot(cmd, async (services) => {
          const user = await ownerOf(services, id);
          const restored = await services.trash.restoreItem(user, id, opts);
          output(cmd, { id, path: restored }, () => `restored ${id} to ${restored} (${user.username})`);
        });
      }),
    );

  trash
    .command('rm')
    .alias('remove')
    .description('delete an item for good')
    .argument('<id>', 'the item id, as fm trash ls shows it')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(rootOption())
    .action(
      action(async (id: string, opts: { yes?: boolean }, cmd: Command) => {
        await withRoot(cmd, async (services) => {
          const user = await ownerOf(services, id);
          await confirmDestructive(`Delete ${id} of ${user.username} for good?`, opts.yes);
          await services.trash.remove(user, id, { asAdmin: true });
          output(cmd, { deleted: id }, () => `deleted ${id} for good`);
        });
      }),
    );

  trash
    .command('empty')
    .description("delete everything in a user's trash for good")
    .requiredOption('--user <user>', 'whose trash (id or username)')
    .option('-y, --yes', 'do not ask for confirmation')
    .addOption(rootOption())
    .action(
      action(async (opts: { user: string; yes?: boolean }, cmd: Command) => {
        await withRoot(cmd, async (services) => {
          const user = await findUser(services.repos, opts.user);
          await confirmDestructive(`Empty the trash of ${user.username}?`, opts.yes);
          const n = await services.trash.empty(user, { asAdmin: true });
          output(cmd, { deleted: n }, () => `deleted ${n} item(s) for good`);
        });
      }),
    );

  return trash;
}
