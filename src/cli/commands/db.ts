import { Command, Option } from 'commander';
import { UsageError } from '../../errors.ts';
import { action, output } from '../run.ts';

export function dbCommand(): Command {
  const db = new Command('db').description('the database itself: move an instance between SQLite and PostgreSQL');
  db.command('copy')
    .description('copy every record (users, settings, links, sessions, tokens, two-factor state) from one database to another')
    .addOption(new Option('--from <file|url>', 'the database to read: a SQLite file or a postgres:// URL').makeOptionMandatory())
    .addOption(new Option('--to <file|url>', 'the database to write (created if needed; must hold no records unless --force)').makeOptionMandatory())
    .option('--force', 'replace the records the target already holds')
    .addHelpText(
      'after',
      '\nStop every instance first.\n\nExamples:\n  fm db copy --from /var/lib/fm/fm.db --to postgres://fm@db.example/fm\n  fm db copy --from postgres://fm@db.example/fm --to fm.db',
    )
    .action(
      action(async (opts: { from: string; to: string; force?: boolean }, cmd: Command) => {
        const { openDatabase } = await import('../../storage/db.ts');
        const { copyDatabase, databaseExists } = await import('../../storage/copy.ts');
        const { isPostgresUrl } = await import('../../storage/postgres/url.ts');
        const path = await import('node:path');
        const where = (s: string) => (isPostgresUrl(s) ? s : path.resolve(s));
        if (where(opts.from) === where(opts.to)) throw new UsageError('--from and --to name the same database');
        if (!databaseExists(where(opts.from), isPostgresUrl(opts.from))) throw new UsageError(`--from: database ${where(opts.from)} does not exist`);
        const from = await openDatabase(where(opts.from));
        try {
          const to = await openDatabase(where(opts.to));
          try {
            const result = await copyDatabase(from, to, { force: Boolean(opts.force) });
            output(
              cmd,
              { from: from.file, to: to.file, ...result },
              () => `copied ${result.records} record(s) and ${result.audit} audit log entries from ${from.file} to ${to.file}`,
            );
          } finally {
            await to.close();
          }
        } finally {
          await from.close();
        }
      }),
    );
  return db;
}
