/** `fm config ...`: the instance settings, in the database a server may be using. */
import fs from 'node:fs';
import { Command } from 'commander';
import type { OidcConfig, SharedSettings } from '../../api/settings.ts';
import { UsageError } from '../../errors.ts';
import { isGiven } from '../layers.ts';
import { action, databasePath, ExitError, output, readInput, withServices, writeOutput } from '../run.ts';
import { confirmDestructive } from '../prompt.ts';
import { addSettingsOptions, applySettingsFlags, type SettingsFlagValues } from '../settingsflags.ts';
import { formatSize } from '../../api/size.ts';
import { keyValues } from '../table.ts';
import { FLAG_PERMISSIONS } from '../userflags.ts';

export function configCommand(): Command {
  const config = new Command('config').description('manage the instance settings');

  addSettingsOptions(config.command('init').description('create a new database with default settings changed by the options given'))
    .addHelpText(
      'after',
      `
The admin user is created, with a random password printed once, when fm serve first starts
(or add one now with fm users add). Fails if the database already holds settings.

Examples:
  fm config init -d /var/lib/fm/fm.db --branding-name "Team files" --create-user-dir
  fm config init --auth-method proxy --auth-header X-Forwarded-User`,
    )
    .action(
      action(async (opts: SettingsFlagValues, cmd: Command) => {
        const file = databasePath(cmd);
        const existed = fs.existsSync(file);
        try {
          await withServices(
            cmd,
            async (services) => {
              if (await services.repos.settings.load()) {
                throw new ExitError(1, `database ${file} is already initialised (change it with "fm config set" or "fm config import")`);
              }
              const { SettingsSchema } = await import('../../schemas/settings.ts');
              const { saveSettings } = await import('../../services/settings.ts');
              const { next } = applySettingsFlags(SettingsSchema.parse({}), opts, isGiven(cmd, 'recaptcha'), isGiven(cmd, 'oidc'));
              const saved = await saveSettings(services, next, { allowLaunchers: Boolean(opts.force) });
              await services.repos.settings.signingKey();
              output(cmd, saved, () => `initialised ${file}`);
            },
            { create: true },
          );
        } catch (err) {
          if (!existed) removeDatabase(file);
          throw err;
        }
      }),
    );

  addSettingsOptions(config.command('set').description('change the settings given as options; the rest stay as they are'))
    .addHelpText(
      'after',
      `
A running server uses the new settings from its next request.

Examples:
  fm config set --signup --create-user-dir --user-home-base-path /home
  fm config set --tus-chunk-size 10MB --tus-retry-count 3
  fm config set --exec --shell "bash -c"       (refused for launchers unless --force)
  fm config set --auth-method proxy --auth-header X-Forwarded-User
  fm config set --oidc-issuer https://sso.example.com --oidc-client-id fm --oidc-client-secret S \\
    --oidc-groups-claim groups --oidc-admin-group fm-admins --oidc-name "Company SSO"
  fm config set --no-perm-delete --locale de   (defaults for new users)`,
    )
    .action(
      action(async (opts: SettingsFlagValues, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const { saveSettings } = await import('../../services/settings.ts');
          const current = await services.repos.settings.editable();
          const { next, changed } = applySettingsFlags(current, opts, isGiven(cmd, 'recaptcha'), isGiven(cmd, 'oidc'));
          if (!changed) throw new UsageError('nothing to set: give at least one option (see fm config set --help)');
          const saved = await saveSettings(services, next, { allowLaunchers: Boolean(opts.force) });
          output(cmd, saved, () => 'settings updated');
        });
      }),
    );

  config
    .command('cat')
    .alias('show')
    .description('print the settings')
    .addHelpText('after', '\nExamples:\n  fm config cat\n  fm config cat --json | jq .tus')
    .action(
      action(async (_opts: unknown, cmd: Command) => {
        await withServices(cmd, async (services) => {
          const s = await services.repos.settings.get();
          output(cmd, s, () => describeSettings(s));
        });
      }),
    );

  config
    .command('export')
    .description('write the settings as filebrowser-compatible JSON {settings, server, auther} (YAML for .yml/.yaml)')
    .argument('<file>', 'file to write (mode 0600), or - for standard output')
    .addHelpText('after', '\nExamples:\n  fm config export fm-config.json\n  fm config export - | jq .settings.rules')
    .action(
      action(async (file: string, _opts: unknown, cmd: Command) => {
        const { exportConfig, serialiseDocument } = await import('../transfer.ts');
        await withServices(cmd, async (services) => {
          const s = await services.repos.settings.get();
          writeOutput(file, serialiseDocument(exportConfig(s), file));
          if (file !== '-') output(cmd, { file }, () => `exported the settings to ${file}`);
        });
      }),
    );

  config
    .command('import')
    .description('replace the settings with those of an fm or filebrowser export (creates the database if needed)')
    .argument('<file>', 'file to read, or - for standard input')
    .option('--force', 'accept programs that launch other programs (sh, env, python ...) in the shell or allowlists')
    .option('-y, --yes', 'do not ask for confirmation')
    .addHelpText(
      'after',
      `
Fields missing from the file take their defaults. The signing key of the database is kept.
filebrowser's server fields that fm takes as fm serve options (root, address, port, baseURL,
...) are reported and ignored. Nothing changes when the file is invalid.

Examples:
  fm config import fm-config.json
  filebrowser config export fb.json && fm config import fb.json -d /var/lib/fm/fm.db`,
    )
    .action(
      action(async (file: string, opts: { force?: boolean; yes?: boolean }, cmd: Command) => {
        const { parseDocument, parseConfigImport } = await import('../transfer.ts');
        const parsed = parseConfigImport(parseDocument(readInput(file), file === '-' ? 'standard input' : file));
        const dbFile = databasePath(cmd);
        const existed = fs.existsSync(dbFile);
        try {
          await withServices(
            cmd,
            async (services) => {
              const { saveSettings, parseSettings } = await import('../../services/settings.ts');
              parseSettings(parsed.settings); // refuse a bad file before asking anything
              if (await services.repos.settings.load()) await confirmDestructive(`Replace the settings of ${dbFile} with ${file}?`, opts.yes);
              const saved = await saveSettings(services, parsed.settings, { allowLaunchers: Boolean(opts.force) });
              await services.repos.settings.signingKey();
              if (parsed.ignored.length) {
                process.stderr.write(`fm: warning: not imported (not settings of the database; see fm serve --help): ${parsed.ignored.join(', ')}\n`);
              }
              output(cmd, saved, () => `imported the settings from ${file === '-' ? 'standard input' : file}`);
            },
            { create: true },
          );
        } catch (err) {
          if (!existed) removeDatabase(dbFile);
          throw err;
        }
      }),
    );

  return config;
}

/** Removes a database file this command created before it failed, so a failure leaves nothing behind. */
function removeDatabase(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

function onOff(v: boolean): string {
  return v ? 'on' : 'off';
}

function describeOidc(o: OidcConfig): string {
  const admin = o.groupsClaim ? `, admins: ${o.adminGroup || '-'} in ${o.groupsClaim}` : '';
  return `${o.name || 'OpenID Connect'}: ${o.issuer}, client ${o.clientId}, secret ${o.clientSecret ? '(set)' : '-'}, user from ${o.usernameClaim}${admin}`;
}

function describeSettings(s: SharedSettings): string {
  const rc = s.auth.recaptcha;
  const d = s.defaults;
  const perms = d.perm.admin ? 'all (admin)' : FLAG_PERMISSIONS.filter((p) => d.perm[p]).join(',') || '-';
  const hooks = Object.values(s.commands).reduce((n, list) => n + list.length, 0);
  const main = keyValues([
    ['signup', s.signup],
    ['hide login button', s.hideLoginButton],
    ['create user dir', s.createUserDir],
    ['user home base path', s.userHomeBasePath],
    ['min password length', s.minimumPasswordLength],
    ['auth method', s.authMethod],
    ['two-factor login required', s.totpRequired],
    ['auth header', s.auth.header || '-'],
    ['auth command', s.auth.command || '-'],
    ['recaptcha', rc ? `host ${rc.host}, key ${rc.key || '-'}, secret ${rc.secret ? '(set)' : '-'}` : 'off'],
    ['single sign-on', s.auth.oidc ? describeOidc(s.auth.oidc) : 'off'],
    ['logout page', s.logoutPage],
    ['branding name', s.branding.name || '-'],
    ['branding theme', s.branding.theme || 'auto'],
    ['branding color', s.branding.color || '-'],
    ['branding files', s.branding.files || '-'],
    ['branding disable external', s.branding.disableExternal],
    ['branding disable used percentage', s.branding.disableUsedPercentage],
    ['tus chunk size', formatSize(s.tus.chunkSize)],
    ['tus retry count', s.tus.retryCount],
    ['max upload size', s.maxUploadSize ? formatSize(s.maxUploadSize) : 'no limit'],
    ['unfinished uploads expire after', `${s.uploadExpiry} s`],
    ['trash retention', s.trashRetention ? `${s.trashRetention} s` : 'off (deletes remove at once)'],
    ['audit log entries kept for', `${s.auditRetention} s`],
    ['exec', onOff(s.enableExec)],
    ['exec network', onOff(s.execNetwork)],
    ['exec max memory', s.execMaxMemory ? formatSize(s.execMaxMemory) : 'no limit'],
    ['exec max file size', s.execMaxFileSize ? formatSize(s.execMaxFileSize) : 'no limit'],
    ['exec max processes', s.execMaxProcesses || 'no limit'],
    ['shell', s.shell.join(' ') || '-'],
    ['thumbnails', onOff(s.enableThumbnails)],
    ['resize preview', onOff(s.resizePreview)],
    ['file mode', `0${s.fileMode.toString(8)}`],
    ['dir mode', `0${s.dirMode.toString(8)}`],
    ['rules', s.rules.length ? `${s.rules.length} (fm rules ls)` : '-'],
    ['event commands', hooks ? `${hooks} (fm cmds ls)` : '-'],
  ]);
  const defaults = keyValues([
    ['scope', d.scope],
    ['locale', d.locale || '(browser)'],
    ['view mode', d.viewMode],
    ['permissions', perms],
    ['commands', d.commands.join(' ') || '-'],
    ['single click', d.singleClick],
    ['redirect after copy/move', d.redirectAfterCopyMove],
    ['hide dotfiles', d.hideDotfiles],
    ['date format', d.dateFormat],
    ['sorting', `${d.sorting.by} ${d.sorting.asc ? 'ascending' : 'descending'}`],
    ['quota', d.quota ? formatSize(d.quota) : '-'],
    ['quota files', d.quotaFiles || '-'],
  ]);
  return `${main}\n\ndefaults for new users:\n${defaults.replace(/^/gm, '  ')}`;
}
