/** /settings/global (admins): general settings, new-user defaults, and the command runner's hooks (spec §2 "Global settings"). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { HOOK_TRIGGERS } from '../../src/api/settings.ts';
import { settingsQuery } from '../api/queries.ts';
import * as settingsApi from '../api/settings.ts';
import type { SettingsDto } from '../api/settings.ts';
import { useNotify } from '../actions/notify.ts';
import { GeneralCard } from '../components/settings/GeneralSettingsCard.tsx';
import { SettingsCard as Card } from '../components/settings/SettingsCard.tsx';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { SingleSignOnCard } from '../components/settings/SingleSignOnCard.tsx';
import { TrashSettingsCard } from '../components/settings/TrashSettingsCard.tsx';
import { UserForm } from '../components/settings/UserForm.tsx';
import { defaultsData, draftFrom, type UserDraft } from '../lib/userDraft.ts';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { useServerData } from '../components/ui/useServerData.ts';

function DefaultsCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const [draft, setDraft] = useState<UserDraft>(() => draftFrom(s.defaults));
  const save = async () => {
    await settingsApi.update({ defaults: defaultsData(draft, s.defaults) });
    showSuccess(t('settings.settingsUpdated'));
  };
  return (
    <Card title={t('settings.userDefaults')} onSave={save}>
      <p className="field-help">{t('settings.userDefaultsHelp')}</p>
      <UserForm value={draft} onChange={setDraft} mode="defaults" exec={s.enableExec} />
    </Card>
  );
}

function CommandsCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const names = [...HOOK_TRIGGERS, ...Object.keys(s.commands).filter((k) => !HOOK_TRIGGERS.includes(k))];
  const [text, setText] = useState<Record<string, string>>(() => Object.fromEntries(names.map((n) => [n, (s.commands[n] ?? []).join('\n')])));
  const save = async () => {
    // One command per line, empty lines dropped (spec §5).
    const commands = Object.fromEntries(
      names.map((n) => [
        n,
        (text[n] ?? '')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      ]),
    );
    await settingsApi.update({ commands });
    showSuccess(t('settings.commandsUpdated'));
  };
  return (
    <Card title={t('settings.commandRunner')} onSave={save}>
      <p className="field-help">{t('settings.commandRunnerHelp')}</p>
      {names.map((n) => (
        <details key={n} className="collapsible" open={(text[n] ?? '') !== ''}>
          <summary>{n}</summary>
          <textarea
            className="input textarea"
            aria-label={n}
            rows={3}
            spellCheck={false}
            value={text[n] ?? ''}
            onChange={(e) => setText({ ...text, [n]: e.target.value })}
          />
        </details>
      ))}
    </Card>
  );
}

export default function GlobalSettingsPage() {
  const { t } = useTranslation();
  const title = t('settings.globalSettings');
  const { data: s, error, retry } = useServerData(settingsQuery());
  return (
    <SettingsPage title={title}>
      {error !== null ? (
        <ErrorScreen code={error} onRetry={retry} />
      ) : s === null ? (
        <p className="card-muted">{t('files.loading')}</p>
      ) : (
        <div className="settings-cards settings-cards-wide">
          <GeneralCard s={s} />
          <DefaultsCard s={s} />
          {s.enableExec && <CommandsCard s={s} />}
          {(s.authMethod === 'json' || s.authMethod === 'hook') && <SingleSignOnCard s={s} />}
          <TrashSettingsCard s={s} />
        </div>
      )}
    </SettingsPage>
  );
}
