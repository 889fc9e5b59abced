/** /settings/shares: the caller's share links (admins: everyone's), with delete and copy-link (spec §2 "Shares settings"). */
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { keys } from '../api/queries.ts';
import * as sharesApi from '../api/shares.ts';
import type { ShareDto } from '../api/shares.ts';
import * as usersApi from '../api/users.ts';
import { useNotify } from '../actions/notify.ts';
import { settings } from '../config.ts';
import { copyText } from '../lib/clipboard.ts';
import { can } from '../lib/perm.ts';
import { shareUrl, sortShares } from '../lib/shareLinks.ts';
import { userAtom } from '../state/auth.ts';
import { PasswordBadge, useConfirmShareDelete } from '../components/share/shareLinkParts.tsx';
import { DropReceived } from '../components/share/DropReceived.tsx';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { ShareDuration } from '../components/settings/ShareDuration.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { IconButton } from '../components/ui/Button.tsx';
import { Icon } from '../components/ui/Icon.tsx';
import { useServerData } from '../components/ui/useServerData.ts';
import { Name } from '../components/ui/Name.tsx';

export default function SharesSettingsPage() {
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const user = useAtomValue(userAtom)!;
  const confirmShareDelete = useConfirmShareDelete();
  const title = t('settings.shareManagement');
  const admin = user.perm.admin;
  const allowed = can(user, 'share');
  const queryClient = useQueryClient();
  const {
    data: links,
    error,
    retry,
  } = useServerData({
    queryKey: [...keys.shares, 'owners', admin],
    enabled: allowed,
    queryFn: async () => {
      let list = await sharesApi.list();
      // Admins see every owner's links; the server names the owners, else they are looked up.
      if (admin && list.some((l) => !l.username)) {
        const names = new Map((await usersApi.list()).map((u) => [u.id, u.username]));
        list = list.map((l) => ({ ...l, username: l.username ?? names.get(l.userID) }));
      }
      return sortShares(list);
    },
  });

  if (!allowed) {
    return (
      <SettingsPage title={title}>
        <ErrorScreen code={403} />
      </SettingsPage>
    );
  }

  const remove = (link: ShareDto) =>
    confirmShareDelete(link, async () => {
      try {
        await sharesApi.remove(link.hash);
      } catch (err) {
        showError(err);
        throw err;
      }
      void queryClient.invalidateQueries({ queryKey: keys.shares });
      showSuccess(t('settings.shareDeleted'));
    });

  const copy = async (link: ShareDto) => {
    try {
      await copyText(shareUrl(window.location.origin, settings.BaseURL, link.hash));
      showSuccess(t('success.linkCopied'));
    } catch (err) {
      showError(err);
    }
  };

  return (
    <SettingsPage title={title}>
      <section className="card card-wide" aria-labelledby="shares-title">
        <h2 className="card-title" id="shares-title">
          {t('settings.shareManagement')}
        </h2>
        {error !== null ? (
          <ErrorScreen code={error} onRetry={retry} />
        ) : links === null ? (
          <p className="card-body card-muted">{t('files.loading')}</p>
        ) : links.length === 0 ? (
          <div className="listing-empty">
            <Icon name="share" size={48} />
            <p>{t('files.lonely')}</p>
          </div>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('settings.path')}</th>
                  <th scope="col">{t('settings.shareDuration')}</th>
                  {admin && <th scope="col">{t('settings.username')}</th>}
                  <th scope="col">
                    <span className="visually-hidden">{t('settings.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {links.map((link) => (
                  <tr key={link.hash} data-hash={link.hash}>
                    <td className="table-path">
                      <a href={shareUrl(window.location.origin, settings.BaseURL, link.hash)} target="_blank" rel="noopener noreferrer">
                        <Name name={link.path} />
                      </a>
                      {link.hasPassword && <PasswordBadge />}
                      <DropReceived link={link} />
                    </td>
                    <td>
                      <ShareDuration expire={link.expire} />
                    </td>
                    {admin && <td>{link.username ?? link.userID}</td>}
                    <td className="table-actions">
                      <IconButton icon="trash" label={t('buttons.delete')} onClick={() => remove(link)} />
                      <IconButton icon="link" label={t('buttons.copyLink')} onClick={() => void copy(link)} />
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
