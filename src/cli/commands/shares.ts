/** `fm shares ls|rm`: share links on the database a server may be using (changes apply at once). */
import { Command } from 'commander';
import type { ShareDto } from '../../api/shares.ts';
import { NotFoundError } from '../../errors.ts';
import { action, output, withServices } from '../run.ts';
import { confirmDestructive } from '../prompt.ts';
import { table } from '../table.ts';
import { findUser } from './users.ts';

/** What an upload-only link received ("-" for other links). */
function formatDrop(d: ShareDto): string {
  if (!d.uploadOnly) return '-';
  const { files, last } = d.received ?? { files: 0, last: 0 };
  return last ? `${files} file(s), last ${new Date(last * 1000).toISOString().replace(/\.000Z$/, 'Z')}` : `${files} file(s)`;
}

function formatExpire(expire: number): string {
  return expire === 0 ? 'permanent' : new Date(expire * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

export function sharesCommand(): Command {
  const shares = new Command('shares').description('manage share links');

  shares
    .command('ls')
    .alias('list')
    .description('list share links: permanent first, then by expiry (expired links are removed)')
    .option('--user <user>', "only this user's links (id or username)")
    .addHelpText('after', '\nExamples:\n  fm shares ls\n  fm shares ls --user alice --json')
    .action(
      action(async (opts: { user?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { presentShare } = await import('../../server/present.ts');
          const only = opts.user === undefined ? undefined : await findUser(services.repos, opts.user);
          const dtos = (await services.shares.listWithOwners(only?.id)).map(({ share, owner }) => presentShare(share, owner));
          output(cmd, dtos, () =>
            dtos.length === 0
              ? 'no share links'
              : table(
                  ['HASH', 'USER', 'EXPIRES', 'PASSWORD', 'PATH', 'UPLOAD-ONLY'],
                  dtos.map((d) => [d.hash, d.username || `#${d.userID}`, formatExpire(d.expire), d.hasPassword, d.path, formatDrop(d)]),
                ),
          );
        });
      }),
    );

  shares
    .command('rm')
    .alias('remove')
    .description('delete a share link by its exact hash')
    .argument('<hash>', 'the link hash, as fm shares ls shows it')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExample:\n  fm shares rm AbC-12_xYz09 --yes')
    .action(
      action(async (hash: string, opts: { yes?: boolean }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const share = await services.repos.shares.get(hash);
          if (!share) throw new NotFoundError(`share "${hash}" not found`);
          await confirmDestructive(`Delete the link ${share.hash} to ${share.path}?`, opts.yes);
          await services.repos.shares.delete(share.hash);
          output(cmd, { deleted: share.hash }, () => `deleted share ${share.hash} (${share.path})`);
        });
      }),
    );

  return shares;
}
