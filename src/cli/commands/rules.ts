/** `fm rules ...`: the global rules, or one user's with --user. Later rules win over earlier ones. */
import { Command, InvalidArgumentError } from 'commander';
import type { Rule } from '../../api/user.ts';
import { UsageError } from '../../errors.ts';
import type { Services } from '../../services/index.ts';
import { action, cliActor, output, withServices } from '../run.ts';
import { confirmDestructive } from '../prompt.ts';
import { table } from '../table.ts';
import { findUser } from './users.ts';

interface Target {
  label: string;
  rules: Rule[];
  save(rules: Rule[]): Promise<void>;
}

/** The rules a command works on: a user's with --user, else the global ones. */
async function target(services: Services, user: string | undefined): Promise<Target> {
  if (user !== undefined) {
    const u = await findUser(services.repos, user);
    return {
      label: `user "${u.username}"`,
      rules: u.rules,
      save: async (rules) => {
        await services.users.update(cliActor(), u.id, { what: 'user', which: ['rules'], data: { rules } }, false);
      },
    };
  }
  const { saveSettings } = await import('../../services/settings.ts');
  const s = await services.repos.settings.editable();
  return {
    label: 'global',
    rules: s.rules,
    save: async (rules) => {
      await saveSettings(services, { ...s, rules });
    },
  };
}

function parseIndex(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError(`expected an index (0, 1, ...), got "${raw}"`);
  return Number(raw);
}

function describeRule(r: Rule): string {
  return r.regex ? r.regexp.raw : r.path;
}

function ruleTable(rules: Rule[]): string {
  if (rules.length === 0) return 'no rules';
  return table(
    ['INDEX', 'ACTION', 'TYPE', 'RULE'],
    rules.map((r, i) => [i, r.allow ? 'allow' : 'deny', r.regex ? 'regex' : 'path', describeRule(r)]),
  );
}

export function rulesCommand(): Command {
  const rules = new Command('rules').description('manage access rules (global, or per user with --user)');

  rules
    .command('ls')
    .alias('list')
    .description('list rules in the order they apply (the last match wins)')
    .option('--user <user>', "a user's rules (id or username) instead of the global ones")
    .addHelpText('after', '\nExamples:\n  fm rules ls\n  fm rules ls --user alice --json')
    .action(
      action(async (opts: { user?: string }, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const t = await target(services, opts.user);
          output(cmd, t.rules, () => ruleTable(t.rules));
        });
      }),
    );

  rules
    .command('add')
    .description('add a rule that denies (or with --allow, allows) a path or a regular expression')
    .argument('<rule>', 'a path relative to the scope (/private), or with --regex a regular expression')
    .option('--allow', 'allow instead of deny')
    .option('--regex', 'the rule is a regular expression (unanchored) matched against the path')
    .option('--user <user>', "add to a user's rules (id or username) instead of the global ones")
    .addHelpText(
      'after',
      `
A path rule matches the path and everything under it. Global rules apply before the
user's, and the last matching rule wins. A running server applies the change at once.

Examples:
  fm rules add /private                       hide /private from everyone
  fm rules add /private/shared --allow        ... but not this folder in it
  fm rules add --regex '\\.(bak|tmp)$'         hide backup and temporary files
  fm rules add /finance --user bob`,
    )
    .action(
      action(async (raw: string, opts: { allow?: boolean; regex?: boolean; user?: string }, cmd: Command) => {
        const { cleanScope } = await import('../../services/scope.ts');
        const { checkRules } = await import('../../services/settings.ts');
        if (!raw) throw new UsageError('the rule is empty');
        const rule: Rule = opts.regex
          ? { regex: true, allow: Boolean(opts.allow), path: '', regexp: { raw } }
          : { regex: false, allow: Boolean(opts.allow), path: cleanScope(raw), regexp: { raw: '' } };
        checkRules([rule], 'the rule');
        await withServices(cmd, async (services) => {
          const t = await target(services, opts.user);
          const next = [...t.rules, rule];
          await t.save(next);
          output(cmd, next, () => `added ${t.label} rule ${next.length - 1}: ${rule.allow ? 'allow' : 'deny'} ${describeRule(rule)}`);
        });
      }),
    );

  rules
    .command('rm')
    .alias('remove')
    .description('remove a rule, or the rules from <index> to [end] (indexes as fm rules ls shows them)')
    .argument('<index>', 'index of the rule', parseIndex)
    .argument('[end]', 'last index of a range to remove', parseIndex)
    .option('--user <user>', "remove from a user's rules (id or username) instead of the global ones")
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText('after', '\nExamples:\n  fm rules rm 0\n  fm rules rm 2 4 --user alice')
    .action(
      action(async (index: number, end: number | undefined, opts: { user?: string; yes?: boolean }, cmd: Command) => {
        const last = end ?? index;
        if (last < index) throw new UsageError(`the end index ${last} is before the start index ${index}`);
        await withServices(cmd, async (services) => {
          const t = await target(services, opts.user);
          if (last >= t.rules.length) {
            throw new UsageError(`there is no ${t.label} rule ${last} (${t.rules.length === 0 ? 'there are no rules' : `indexes 0 to ${t.rules.length - 1}`})`);
          }
          const removed = t.rules.slice(index, last + 1);
          await confirmDestructive(`Remove ${t.label} ${removed.length === 1 ? 'rule' : 'rules'} ${removed.map(describeRule).join(', ')}?`, opts.yes);
          const next = [...t.rules.slice(0, index), ...t.rules.slice(last + 1)];
          await t.save(next);
          output(cmd, next, () => `removed ${removed.length} ${t.label} ${removed.length === 1 ? 'rule' : 'rules'}`);
        });
      }),
    );

  return rules;
}
