/** /settings/global (admins): general settings, new-user defaults, and the command runner's hooks (spec §2 "Global settings"). */
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { HOOK_TRIGGERS } from '../../src/api/settings.ts';
import type { Rule } from '../../src/api/user.ts';
import { useQueryClient } from '@tanstack/react-query';
import { keys, settingsQuery } from '../api/queries.ts';
import * as settingsApi from '../api/settings.ts';
import type { SettingsDto } from '../api/settings.ts';
import { useNotify } from '../actions/notify.ts';
import { CHUNK_SIZE_DEBOUNCE_MS, formatChunkSize, parseChunkSize } from '../lib/chunkSize.ts';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { RulesEditor } from '../components/settings/RulesEditor.tsx';
import { completeRules } from '../lib/rules.ts';
import { UserForm } from '../components/settings/UserForm.tsx';
import { defaultsData, draftFrom, type UserDraft } from '../lib/userDraft.ts';
import { SubmitButton } from '../components/prompts/PromptFrame.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { useAction } from '../components/ui/useAction.ts';
import { useTitle } from '../components/ui/useTitle.ts';
import { useServerData } from '../components/ui/useServerData.ts';

/** Hook events in the order the card lists them. */

/** A card that is a form with its own Update button. */
function Card({ title, children, onSave, wide }: { title: string; children: ReactNode; onSave: () => Promise<void>; wide?: boolean }) {
  const { showError } = useNotify();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const action = useAction(async () => {
    try {
      await onSave();
    } catch (err) {
      showError(err);
      throw err;
    }
    void queryClient.invalidateQueries({ queryKey: keys.settings });
  });
  return (
    <form
      className={`card${wide ? ' card-wide' : ''}`}
      aria-label={title}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 className="card-title">{title}</h2>
      <div className="card-body">{children}</div>
      <div className="card-actions">
        <SubmitButton label={t('buttons.update')} state={action.state} />
      </div>
    </form>
  );
}

/** The chunk size as text (B/KB/MB/GB/TB), committed 1.5 s after typing stops (spec §4). */
function useChunkSize(initial: number) {
  const [bytes, setBytes] = useState(initial);
  const [text, setText] = useState(() => formatChunkSize(initial));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(text);
  const commit = (): number => {
    clearTimeout(timer.current);
    timer.current = undefined;
    const parsed = parseChunkSize(latest.current);
    setBytes(parsed);
    setText(formatChunkSize(parsed));
    latest.current = formatChunkSize(parsed);
    return parsed;
  };
  useEffect(() => () => clearTimeout(timer.current), []);
  const onChange = (value: string) => {
    setText(value);
    latest.current = value;
    clearTimeout(timer.current);
    timer.current = setTimeout(commit, CHUNK_SIZE_DEBOUNCE_MS);
  };
  /** The value to save: a pending edit is committed at once. */
  const flush = () => (timer.current !== undefined ? commit() : bytes);
  return { text, onChange, flush };
}

function GeneralCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const [signup, setSignup] = useState(s.signup);
  const [createUserDir, setCreateUserDir] = useState(s.createUserDir);
  const [home, setHome] = useState(s.userHomeBasePath);
  const [rules, setRules] = useState<Rule[]>(s.rules);
  const [shell, setShell] = useState(s.shell.join(' '));
  const [branding, setBranding] = useState(s.branding);
  const chunk = useChunkSize(s.tus.chunkSize);
  const [retryCount, setRetryCount] = useState(String(s.tus.retryCount));
  const check = (label: string, value: boolean, set: (v: boolean) => void) => (
    <label className="checkbox">
      <input type="checkbox" checked={value} onChange={(e) => set(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
  const save = async () => {
    const retries = Math.max(0, Math.floor(Number(retryCount) || 0));
    await settingsApi.update({
      signup,
      createUserDir,
      userHomeBasePath: home,
      rules: completeRules(rules),
      // Split on spaces, empties removed (spec §5).
      ...(s.enableExec ? { shell: shell.split(' ').filter(Boolean) } : {}),
      branding,
      tus: { chunkSize: chunk.flush(), retryCount: retries },
    });
    setRetryCount(String(retries));
    showSuccess(t('settings.settingsUpdated'));
  };
  return (
    <Card title={t('settings.globalSettings')} onSave={save}>
      {check(t('settings.allowSignup'), signup, setSignup)}
      {check(t('settings.createUserDir'), createUserDir, setCreateUserDir)}
      <label className="field">
        <span>{t('settings.userHomeBasePath')}</span>
        <input className="input" spellCheck={false} value={home} onChange={(e) => setHome(e.target.value)} />
      </label>
      <RulesEditor rules={rules} onChange={setRules} />
      {s.enableExec && (
        <label className="field">
          <span>{t('settings.shell')}</span>
          <input className="input" spellCheck={false} placeholder="bash -c" value={shell} onChange={(e) => setShell(e.target.value)} />
          <small className="field-help">{t('settings.shellHelp')}</small>
        </label>
      )}
      <fieldset className="group">
        <legend className="fieldset-legend">{t('settings.branding')}</legend>
        <p className="field-help">{t('settings.brandingHelp')}</p>
        {check(t('settings.disableExternalLinks'), branding.disableExternal, (v) => setBranding({ ...branding, disableExternal: v }))}
        {check(t('settings.disableUsedDiskPercentage'), branding.disableUsedPercentage, (v) => setBranding({ ...branding, disableUsedPercentage: v }))}
        <label className="field">
          <span>{t('settings.theme')}</span>
          <select className="input" value={branding.theme} onChange={(e) => setBranding({ ...branding, theme: e.target.value as SettingsDto['branding']['theme'] })}>
            <option value="">{t('settings.themes.system')}</option>
            <option value="light">{t('settings.themes.light')}</option>
            <option value="dark">{t('settings.themes.dark')}</option>
          </select>
        </label>
        <label className="field">
          <span>{t('settings.instanceName')}</span>
          <input className="input" value={branding.name} onChange={(e) => setBranding({ ...branding, name: e.target.value })} />
        </label>
        <label className="field">
          <span>{t('settings.brandingDirectoryPath')}</span>
          <input className="input" spellCheck={false} value={branding.files} onChange={(e) => setBranding({ ...branding, files: e.target.value })} />
        </label>
      </fieldset>
      <fieldset className="group">
        <legend className="fieldset-legend">{t('settings.uploads')}</legend>
        <label className="field">
          <span>{t('settings.chunkSize')}</span>
          <input className="input" name="chunkSize" spellCheck={false} inputMode="text" value={chunk.text} onChange={(e) => chunk.onChange(e.target.value)} />
          <small className="field-help">{t('settings.chunkSizeHelp')}</small>
        </label>
        <label className="field">
          <span>{t('settings.retryCount')}</span>
          <input className="input" name="retryCount" type="number" min={0} step={1} value={retryCount} onChange={(e) => setRetryCount(e.target.value)} />
        </label>
      </fieldset>
    </Card>
  );
}

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
    const commands = Object.fromEntries(names.map((n) => [n, (text[n] ?? '').split('\n').map((l) => l.trim()).filter(Boolean)]));
    await settingsApi.update({ commands });
    showSuccess(t('settings.commandsUpdated'));
  };
  return (
    <Card title={t('settings.commandRunner')} onSave={save}>
      <p className="field-help">{t('settings.commandRunnerHelp')}</p>
      {names.map((n) => (
        <details key={n} className="collapsible" open={(text[n] ?? '') !== ''}>
          <summary>{n}</summary>
          <textarea className="input textarea" aria-label={n} rows={3} spellCheck={false} value={text[n] ?? ''} onChange={(e) => setText({ ...text, [n]: e.target.value })} />
        </details>
      ))}
    </Card>
  );
}

export default function GlobalSettingsPage() {
  const { t } = useTranslation();
  useTitle(t('settings.globalSettings'));
  const { data: s, error } = useServerData(settingsQuery());
  return (
    <SettingsPage>
      {error !== null ? (
        <ErrorScreen code={error} />
      ) : s === null ? (
        <p className="card-muted">{t('files.loading')}</p>
      ) : (
        <div className="settings-cards settings-cards-wide">
          <GeneralCard s={s} />
          <DefaultsCard s={s} />
          {s.enableExec && <CommandsCard s={s} />}
        </div>
      )}
    </SettingsPage>
  );
}
