/** `fm audit ls`: the audit log, newest first, read from the database (what GET /api/audit answers to an admin). */
import { Command, Option } from 'commander';
import { AUDIT_ACTIONS, auditCsv, type AuditEntry } from '../../api/audit.ts';
import { BadRequestError } from '../../errors.ts';
import { AuditQuerySchema } from '../../schemas/audit.ts';
import { action, output, withServices } from '../run.ts';
import { table } from '../table.ts';

interface LsOptions {
  since?: string;
  until?: string;
  user?: string;
  action?: string;
  path?: string;
  limit?: string;
  offset?: string;
  csv?: boolean;
}

const dash = (v: string | number | null) => (v === null || v === '' ? '-' : v);

function humanTable(entries: AuditEntry[], total: number): string {
  if (entries.length === 0) return 'no entries';
  const rows = entries.map((e) => [
    e.time.replace(/\.\d{3}Z$/, 'Z'),
    dash(e.actor ?? (e.share ? `share:${e.share}` : null)),
    dash(e.address),
    e.action,
    dash(e.dest ? `${e.path} -> ${e.dest}` : e.path),
    dash(e.bytes),
    dash(e.status),
    dash(e.detail),
  ]);
  const more = total > entries.length ? `\n(${entries.length} of ${total}: use --limit and --offset for more)` : '';
  return table(['TIME', 'ACTOR', 'ADDRESS', 'ACTION', 'PATH', 'BYTES', 'STATUS', 'DETAIL'], rows) + more;
}

export function auditCommand(): Command {
  const audit = new Command('audit').description('read the audit log: logins, file operations, downloads, share hits, changes');
  audit
    .command('ls')
    .alias('list')
    .description('list entries, newest first')
    .option('--since <when>', 'from this time: a duration back from now (24h, 7d, 30m) or an ISO 8601 date')
    .option('--until <when>', 'before this time (same forms as --since)')
    .option('--user <name>', 'only entries of this user')
    .addOption(new Option('--action <action>', 'only this action').choices([...AUDIT_ACTIONS]))
    .option('--path <prefix>', 'only entries on this path or under it')
    .option('--limit <n>', 'at most this many entries (default 100, at most 10000)')
    .option('--offset <n>', 'skip this many of the newest entries')
    .option('--csv', 'print CSV (RFC 4180)')
    .addHelpText('after', '\nExamples:\n  fm audit ls --since 24h\n  fm audit ls --since 24h --user alice --action delete --json')
    .action(
      action(async (opts: LsOptions, cmd: Command) => {
        const { csv, ...filters } = opts;
        const parsed = AuditQuerySchema.safeParse(filters);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new BadRequestError(`--${String(issue.path[0])}: ${issue.message}`);
        }
        const q = parsed.data;
        await withServices(cmd, async (services) => {
          const filter = { since: q.since, until: q.until, actor: q.user, action: q.action, path: q.path };
          const { entries, total } = await services.audit.find(filter, { limit: q.limit, offset: q.offset });
          if (csv) process.stdout.write(auditCsv(entries));
          else output(cmd, entries, () => humanTable(entries, total));
        });
      }),
    );
  return audit;
}
