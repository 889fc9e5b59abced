/** /trash: what the user deleted, newest first, with restore (asking on a clash), delete for good and empty (docs/trash.md). */
import { useQueryClient } from '@tanstack/react-query';
import { useAtomValue, useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { statusOf } from '../api/client.ts';
import { keys } from '../api/queries.ts';
import * as trashApi from '../api/trash.ts';
import type { RestoreMode, TrashItem } from '../api/trash.ts';
import { useNotify } from '../actions/notify.ts';
import { Header, type HeaderAction } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { IconButton } from '../components/ui/Button.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { Icon } from '../components/ui/Icon.tsx';
import { Name } from '../components/ui/Name.tsx';
import { useServerData } from '../components/ui/useServerData.ts';
import { useTitle } from '../components/ui/useTitle.ts';
import { useLocaleTag } from '../i18n/index.ts';
import { formatExact, formatModified, formatSize } from '../lib/format.ts';
import { displayName } from '../lib/names.ts';
import { can } from '../lib/perm.ts';
import { userAtom } from '../state/auth.ts';
import { showPromptAtom } from '../state/prompts.ts';

export default function TrashPage() {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const title = t('trash.title');
  useTitle(title);
  const user = useAtomValue(userAtom)!;
  const showPrompt = useSetAtom(showPromptAtom);
  const { showError, showSuccess } = useNotify();
  const queryClient = useQueryClient();
  const { data: items, error, retry } = useServerData({ queryKey: keys.trash, queryFn: trashApi.list });
  const mayRestore = can(user, 'create');
  const mayDelete = can(user, 'delete');

  const changed = () => {
    void queryClient.invalidateQueries({ queryKey: keys.trash });
    void queryClient.invalidateQueries({ queryKey: keys.resources });
  };

  const restore = async (item: TrashItem, mode?: RestoreMode): Promise<void> => {
    try {
      const { path } = await trashApi.restore(item.id, mode);
      showSuccess(t('trash.restored', { path: displayName(path) }));
      changed();
    } catch (err) {
      if (mode === undefined && statusOf(err) === 409) {
        showPrompt({
          name: 'replaceRename',
          props: {
            message: t('trash.clash', { path: displayName(item.path) }),
            renameLabel: t('trash.keepBoth'),
            onChoose: (choice) => restore(item, choice === 'rename' ? 'rename' : 'override'),
          },
        });
        return;
      }
      showError(err);
    }
  };

  const confirmThen = (titleKey: string, message: string, run: () => Promise<void>, done: string) =>
    showPrompt({
      name: 'confirm',
      props: {
        title: t(titleKey),
        message,
        confirm: t('trash.deleteForGood'),
        onConfirm: async () => {
          try {
            await run();
          } catch (err) {
            showError(err);
            throw err;
          }
          changed();
          showSuccess(done);
        },
      },
    });

  const removeForGood = (item: TrashItem) =>
    confirmThen('trash.deleteTitle', t('trash.deleteMessage', { name: displayName(item.name) }), () => trashApi.remove(item.id), t('trash.deleted'));
  const emptyAll = () => confirmThen('trash.emptyTitle', t('trash.emptyMessage'), trashApi.empty, t('trash.emptied'));

  const actions: HeaderAction[] =
    mayDelete && items && items.length > 0 ? [{ id: 'empty', icon: 'trash', label: t('trash.empty'), run: emptyAll, pinned: true }] : [];

  return (
    <Layout header={<Header title={title} actions={actions} />}>
      <section className="card card-wide trash-page" aria-labelledby="trash-title">
        <h2 className="card-title" id="trash-title">
          {title}
        </h2>
        {error !== null ? (
          <ErrorScreen code={error} onRetry={retry} />
        ) : items === null ? (
          <p className="card-body card-muted">{t('files.loading')}</p>
        ) : items.length === 0 ? (
          <div className="listing-empty">
            <Icon name="trash" size={48} />
            <p>{t('trash.emptyState')}</p>
          </div>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('files.name')}</th>
                  <th scope="col">{t('trash.deletedAt')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('settings.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={item.id} data-id={item.id}>
                    <td className="table-path">
                      <span className="trash-name">
                        <Icon name={item.isDir ? 'folder' : 'file'} />
                        <Name name={item.name} />
                      </span>
                      {/* Under the name, so that the row fits a phone; read as "Original location: …". */}
                      <span className="trash-detail">
                        <span className="visually-hidden">{t('trash.originalPath')}: </span>
                        {item.path ? <Name name={item.path} /> : '—'}
                      </span>
                    </td>
                    <td className="trash-when">
                      <time dateTime={item.deleted} title={formatExact(new Date(item.deleted), tag)}>
                        {formatModified(item.deleted, tag, user.dateFormat)}
                      </time>
                      <span className="trash-detail">
                        <span className="visually-hidden">{t('files.size')}: </span>
                        {formatSize(item.size, tag)}
                      </span>
                    </td>
                    <td className="table-actions">
                      {mayRestore && <IconButton icon="retry" label={`${t('trash.restore')}: ${displayName(item.name)}`} onClick={() => void restore(item)} />}
                      {mayDelete && (
                        <IconButton icon="close" label={`${t('trash.deleteForGood')}: ${displayName(item.name)}`} onClick={() => removeForGood(item)} />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}
