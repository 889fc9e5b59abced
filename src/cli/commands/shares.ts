/** `fm shares ls|rm`: share links on the database a server may be using (changes apply at once). */
import { Command, Option } from 'commander';
import { action, output, withDatabase } from '../run.ts';
import { NotFoundError, UsageError } from '../../errors.ts';

interface LsOptions {
  user?: string;
}

interface RmOptions {
  yes?: boolean;
}

function formatExpire(expire: number): string {
  return expire === 0 ? 'permanent' : new Date(expire * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** Asks on a terminal; without one, a missing --yes is a usage error (never a hang). */
async function confirmed(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new UsageError('no terminal to confirm on: pass --yes');
  const { confirm } = await import('@inquirer/prompts');
  return confirm({ message: question, default: false });
}

export function sharesCommand(): Command {
  const shares = new Command('shares').description('manage share links');

  shares
    .command('ls')
    .description('list share links (permanent first, then by expiry)')
    .addOption(new Option('-u, --user <id|name>', "only this user's links"))
    .addHelpText('after', '\nExamples:\n  fm shares ls\n  fm shares ls --user alice --json')
    .action(
      action(async (opts: LsOptions, cmd: Command) => {
        await withDatabase(cmd, async (db) => {
          const { createRepos } = await import('../../services/context.ts');
          const { presentShare } = await import('../../services/shares.ts');
          const repos = createRepos(db);
          const users = await repos.users.list();
          let list = await repos.shares.list();
          if (opts.user !== undefined) {
            const user = await repos.users.find(opts.user);
            if (!user) throw new NotFoundError(`user "${opts.user}" not found`);
            list = list.filter((s) => s.userID === user.id);
          }
          const names = new Map(users.map((u) => [u.id, u.username]));
          const dtos = list.map((s) => presentShare(s, names.get(s.userID) ?? ''));
          output(cmd, dtos, () => {
            if (!dtos.length) return 'no share links';
            const rows = [['HASH', 'USER', 'EXPIRES', 'PASSWORD', 'PATH']];
            for (const d of dtos) rows.push([d.hash, d.username || `#${d.userID}`, formatExpire(d.expire), d.hasPassword ? 'yes' : 'no', d.path]);
            const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
            return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
          });
        });
      }),
    );

  shares
    .command('rm')
    .description('delete a share link by its exact hash')
    .argument('<hash>', 'the link hash (as shown by fm shares ls)')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExample:\n  fm shares rm AbC-12_xYz09 --yes')
    .action(
      action(async (hash: string, opts: RmOptions, cmd: Command) => {
        await withDatabase(cmd, async (db) => {
          const { createRepos } = await import('../../services/context.ts');
          const repos = createRepos(db);
          const share = await repos.shares.get(hash);
          if (!share) throw new NotFoundError(`share "${hash}" not found`);
          if (!opts.yes && !(await confirmed(`delete the link ${share.hash} to ${share.path}?`))) {
            output(cmd, { deleted: false, hash: share.hash }, () => 'kept');
            return;
          }
          await repos.shares.delete(share.hash);
          output(cmd, { deleted: true, hash: share.hash }, () => `deleted share ${share.hash} (${share.path})`);
        });
      }),
    );

  return shares;
}
