/** /settings/users (admins): username, admin flag, scope, an edit link per user, and a New button (spec §2 "Users list"). */
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { usersQuery } from '../api/queries.ts';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { Icon } from '../components/ui/Icon.tsx';
import { useServerData } from '../components/ui/useServerData.ts';

export default function UsersSettingsPage() {
  const { t } = useTranslation();
  const title = t('settings.users');
  const { data: users, error, retry } = useServerData(usersQuery());
  return (
    <SettingsPage title={title}>
      <section className="card card-wide" aria-labelledby="users-title">
        <div className="card-header">
          <h2 className="card-title" id="users-title">
            {t('settings.users')}
          </h2>
          <Link href="/settings/users/new" className="button button-primary">
            <Icon name="plus" size={18} /> {t('buttons.new')}
          </Link>
        </div>
        {error !== null ? (
          <ErrorScreen code={error} onRetry={retry} />
        ) : users === null ? (
          <p className="card-body card-muted">{t('files.loading')}</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('settings.username')}</th>
                  <th scope="col">{t('settings.admin')}</th>
                  <th scope="col">{t('settings.scope')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('settings.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.map((u) => (
                  <tr key={u.id}>
                    <td>{u.username}</td>
                    <td>
                      {u.perm.admin ? <Icon name="check" size={18} /> : <Icon name="close" size={18} className="icon-muted" />}
                      <span className="visually-hidden">{u.perm.admin ? t('settings.yes') : t('settings.no')}</span>
                    </td>
                    <td className="table-path">{u.scope}</td>
                    <td className="table-actions">
                      <Link
                        href={`/settings/users/${u.id}`}
                        className="icon-button"
                        aria-label={t('buttons.editUser', { name: u.username })}
                        title={t('buttons.edit')}
                      >
                        <Icon name="rename" />
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </SettingsPage>
  );
}
