/** The password form of a protected share link (spec §4 "Share page": a wrong password shows wrongCredentials). */
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../ui/Icon.tsx';

export function SharePassword({ error, onSubmit }: { error: string; onSubmit: (password: string) => Promise<void> }) {
  const { t } = useTranslation();
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!password || busy) return;
    setBusy(true);
    try {
      await onSubmit(password);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card share-password" onSubmit={submit}>
      <Icon name="lock" size={40} className="share-icon" />
      <h2 className="card-title">{t('share.passwordTitle')}</h2>
      <div className="card-body">
        <p>{t('share.passwordMessage')}</p>
        {error && (
          <p className="login-error" role="alert">
            {t(error)}
          </p>
        )}
        <label className="field">
          <span>{t('login.password')}</span>
          {/* biome-ignore lint/a11y/noAutofocus: the page is this one field; a visitor with the keyboard types the password at once */}
          <input className="input" type="password" autoFocus autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
      </div>
      <div className="card-actions">
        <button type="submit" className="button button-primary" disabled={!password || busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          <span className={busy ? 'button-label-hidden' : ''}>{t('buttons.submit')}</span>
        </button>
      </div>
    </form>
  );
}
