/** The WebDAV address to paste into a desktop or sync client (docs/webdav.md); absent when WebDAV is off. */
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { settings } from '../../config.ts';
import { userAtom } from '../../state/auth.ts';

export function WebDavCard() {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  if (!settings.WebDAVPath || !user) return null;
  const address = `${window.location.origin}${settings.WebDAVPath}`;
  return (
    <section className="card" aria-labelledby="webdav-card-title">
      <h2 className="card-title" id="webdav-card-title">
        {t('settings.webdav')}
      </h2>
      <div className="card-body">
        <p>{t('settings.webdavHint', { username: user.username })}</p>
        <label className="field">
          <span>{t('settings.webdavAddress')}</span>
          <input className="input" name="webdavAddress" readOnly value={address} onFocus={(e) => e.currentTarget.select()} />
        </label>
      </div>
    </section>
  );
}
