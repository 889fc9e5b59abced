/** The general card of /settings/global: signup, home folders, the two-factor policy, shell, branding, theme, upload chunk size and retries. */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TotpPolicy } from '../../../src/api/totp.ts';
import type { Rule } from '../../../src/api/user.ts';
import * as settingsApi from '../../api/settings.ts';
import type { SettingsDto } from '../../api/settings.ts';
import { useNotify } from '../../actions/notify.ts';
import { CHUNK_SIZE_DEBOUNCE_MS, formatChunkSize, parseChunkSize } from '../../lib/chunkSize.ts';
import { completeRules } from '../../lib/rules.ts';
import { RulesEditor } from './RulesEditor.tsx';
import { SettingsCard as Card } from './SettingsCard.tsx';

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

export function GeneralCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const [signup, setSignup] = useState(s.signup);
  const [createUserDir, setCreateUserDir] = useState(s.createUserDir);
  const [home, setHome] = useState(s.userHomeBasePath);
  const [totpRequired, setTotpRequired] = useState(s.totpRequired);
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
      totpRequired,
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
      {s.authMethod === 'json' && (
        <label className="field">
          <span>{t('twoFactor.policy')}</span>
          <select className="input" name="totpRequired" value={totpRequired} onChange={(e) => setTotpRequired(e.target.value as TotpPolicy)}>
            <option value="none">{t('twoFactor.policyNone')}</option>
            <option value="admins">{t('twoFactor.policyAdmins')}</option>
            <option value="all">{t('twoFactor.policyAll')}</option>
          </select>
          <small className="field-help">{t('twoFactor.policyHelp')}</small>
        </label>
      )}
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
          <select
            className="input"
            value={branding.theme}
            onChange={(e) => setBranding({ ...branding, theme: e.target.value as SettingsDto['branding']['theme'] })}
          >
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
