/** /settings/profile: display preferences, language, the password card (spec §2 "Settings"), two-factor login, the WebDAV address and access tokens. */
import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { update } from '../api/users.ts';
import { useNotify } from '../actions/notify.ts';
import { useSession } from '../actions/session.ts';
import { settings } from '../config.ts';
import { LOCALES, userLocale } from '../i18n/locales.ts';
import { userAtom } from '../state/auth.ts';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { AccessTokensCard } from '../components/settings/AccessTokensCard.tsx';
import { TwoFactorCard } from '../components/settings/TwoFactorCard.tsx';
import { SubmitButton } from '../components/prompts/PromptFrame.tsx';
import { useAction } from '../components/ui/useAction.ts';
import { WebDavCard } from '../components/settings/WebDavCard.tsx';
import { ActivityCard } from '../components/settings/ActivityCard.tsx';

function ProfileCard() {
  const { renewToken } = useSession();
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const user = useAtomValue(userAtom)!;
  const [hideDotfiles, setHideDotfiles] = useState(user.hideDotfiles);
  const [singleClick, setSingleClick] = useState(user.singleClick);
  const [dateFormat, setDateFormat] = useState(user.dateFormat);
  const [dirSizes, setDirSizes] = useState(user.dirSizes === true);
  const [locale, setLocale] = useState<string>(userLocale(user.locale, navigator.languages));
  const action = useAction(async () => {
    try {
      await update(user.id, ['locale', 'hideDotfiles', 'singleClick', 'dateFormat', 'dirSizes'], { locale, hideDotfiles, singleClick, dateFormat, dirSizes });
      await renewToken();
    } catch (err) {
      showError(err);
      throw err;
    }
    showSuccess(t('settings.settingsUpdated'));
  });
  const check = (label: string, value: boolean, set: (v: boolean) => void, name: string) => (
    <label className="checkbox">
      <input type="checkbox" name={name} checked={value} onChange={(e) => set(e.target.checked)} />
      <span>{label}</span>
    </label>
  );
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 className="card-title">{t('settings.profileSettings')}</h2>
      <div className="card-body">
        {check(t('settings.hideDotfiles'), hideDotfiles, setHideDotfiles, 'hideDotfiles')}
        {check(t('settings.singleClick'), singleClick, setSingleClick, 'singleClick')}
        {check(t('settings.setDateFormat'), dateFormat, setDateFormat, 'dateFormat')}
        {check(t('analyzer.dirSizesSetting'), dirSizes, setDirSizes, 'dirSizes')}
        <label className="field">
          <span>{t('settings.language')}</span>
          <select className="input" name="locale" value={locale} onChange={(e) => setLocale(e.target.value)}>
            {LOCALES.map((l) => (
              <option key={l.code} value={l.code} lang={l.tag}>
                {l.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="card-actions">
        <SubmitButton label={t('buttons.update')} state={action.state} />
      </div>
    </form>
  );
}

function PasswordCard() {
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const user = useAtomValue(userAtom)!;
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const needsCurrent = settings.AuthMethod === 'json';
  const matches = password !== '' && password === confirm;
  const action = useAction(async () => {
    // Nothing happens unless the password equals its confirmation and is not empty (spec §5).
    if (!matches) return;
    try {
      await update(user.id, ['password'], { password }, needsCurrent ? current : undefined);
    } catch (err) {
      showError(err);
      throw err;
    }
    setCurrent('');
    setPassword('');
    setConfirm('');
    showSuccess(t('settings.passwordUpdated'));
  });
  const state = confirm === '' ? '' : matches ? ' input-ok' : ' input-bad';
  return (
    <form
      className="card"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 className="card-title">{t('settings.changePassword')}</h2>
      <div className="card-body">
        {needsCurrent && (
          <label className="field">
            <span>{t('settings.currentPassword')}</span>
            <input
              className="input"
              type="password"
              name="currentPassword"
              autoComplete="current-password"
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
            />
          </label>
        )}
        <label className="field">
          <span>{t('settings.newPassword')}</span>
          <input
            className={`input${state}`}
            type="password"
            name="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <label className="field">
          <span>{t('settings.newPasswordConfirm')}</span>
          <input
            className={`input${state}`}
            type="password"
            name="passwordConfirm"
            autoComplete="new-password"
            value={confirm}
            aria-invalid={confirm !== '' && !matches}
            onChange={(e) => setConfirm(e.target.value)}
          />
        </label>
      </div>
      <div className="card-actions">
        <SubmitButton label={t('buttons.update')} state={action.state} disabled={!matches} />
      </div>
    </form>
  );
}

export default function ProfileSettingsPage() {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom)!;
  const title = t('settings.profileSettings');
  return (
    <SettingsPage title={title}>
      <div className="settings-cards">
        <ProfileCard />
        {!user.lockPassword && <PasswordCard />}
        {/* Only the json method asks for codes at login. */}
        {settings.AuthMethod === 'json' && <TwoFactorCard />}
        <WebDavCard />
        {/* Without authentication every request is the admin's: a token would add nothing. */}
        {settings.AuthMethod !== 'noauth' && <AccessTokensCard />}
        <ActivityCard />
      </div>
    </SettingsPage>
  );
}
