/** The single sign-on card of /settings/global: the OpenID provider, its client, and the claims fm reads (docs/auth.md). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OidcConfig } from '../../../src/api/settings.ts';
import * as settingsApi from '../../api/settings.ts';
import type { SettingsDto } from '../../api/settings.ts';
import { useNotify } from '../../actions/notify.ts';
import { settings as startup } from '../../config.ts';
import { SettingsCard as Card } from './SettingsCard.tsx';

type Field = Exclude<keyof OidcConfig, 'clientSecret'>;
const FIELDS: { key: Field; label: string; required?: boolean }[] = [
  { key: 'name', label: 'settings.sso.name' },
  { key: 'issuer', label: 'settings.sso.issuer', required: true },
  { key: 'clientId', label: 'settings.sso.clientId', required: true },
  { key: 'scopes', label: 'settings.sso.scopes' },
  { key: 'usernameClaim', label: 'settings.sso.usernameClaim', required: true },
  { key: 'groupsClaim', label: 'settings.sso.groupsClaim' },
  { key: 'adminGroup', label: 'settings.sso.adminGroup' },
];

const EMPTY: Omit<OidcConfig, 'clientSecret'> = {
  name: '',
  issuer: '',
  clientId: '',
  scopes: 'openid profile email',
  usernameClaim: 'preferred_username',
  groupsClaim: '',
  adminGroup: '',
};

export function SingleSignOnCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const [enabled, setEnabled] = useState(s.auth.oidc !== null);
  const [values, setValues] = useState(() => ({ ...EMPTY, ...s.auth.oidc }));
  const [secret, setSecret] = useState('');
  const [password, setPassword] = useState('');
  const save = async () => {
    const { hasClientSecret: _h, ...fields } = { hasClientSecret: false, ...values };
    await settingsApi.updateSingleSignOn(enabled ? { ...fields, clientSecret: secret } : null, password);
    setSecret('');
    setPassword('');
    showSuccess(t('settings.settingsUpdated'));
  };
  const redirectUri = `${window.location.origin}${startup.BaseURL}/api/auth/oidc/callback`;
  return (
    <Card title={t('settings.sso.title')} onSave={save}>
      <p className="field-help">{t('settings.sso.help', { uri: redirectUri })}</p>
      <label className="checkbox">
        <input type="checkbox" name="ssoEnabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <span>{t('settings.sso.enabled')}</span>
      </label>
      {enabled &&
        FIELDS.map(({ key, label, required }) => (
          <label className="field" key={key}>
            <span>{t(label)}</span>
            <input
              className="input"
              name={`sso-${key}`}
              spellCheck={false}
              required={required}
              type={key === 'issuer' ? 'url' : 'text'}
              value={values[key]}
              onChange={(e) => setValues({ ...values, [key]: e.target.value })}
            />
          </label>
        ))}
      {enabled && (
        <label className="field">
          <span>{t('settings.sso.clientSecret')}</span>
          <input className="input" name="sso-clientSecret" type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} />
          {s.auth.oidc?.hasClientSecret && <small className="field-help">{t('settings.sso.secretKept')}</small>}
        </label>
      )}
      {s.authMethod === 'json' && (
        <label className="field">
          <span>{t('settings.currentPassword')}</span>
          <input
            className="input"
            name="current_password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
      )}
    </Card>
  );
}
