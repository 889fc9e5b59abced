/**
 * /settings/users/new and /settings/users/{id} (admins): the user form with save and, for an
 * existing user, delete with a confirmation (spec §2 "User edit"). Sensitive changes ask for the
 * admin's own password under json auth.
 */
import { useQueryClient } from '@tanstack/react-query';
import { keys, settingsQuery, userQuery } from '../api/queries.ts';
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import * as usersApi from '../api/users.ts';
import { statusOf } from '../api/client.ts';
import { useNotify } from '../actions/notify.ts';
import { askCurrentPassword } from '../actions/password.ts';
import { useSession } from '../actions/session.ts';
import { userAtom } from '../state/auth.ts';
import { showPromptAtom } from '../state/prompts.ts';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { UserForm } from '../components/settings/UserForm.tsx';
import { changedFields, draftFrom, isSensitive, userData, type UserDraft } from '../lib/userDraft.ts';
import { SubmitButton } from '../components/prompts/PromptFrame.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { useAction } from '../components/ui/useAction.ts';

interface Loaded {
  saved: UserDraft;
  exec: boolean;
  createUserDir: boolean;
}

export default function UserEditPage({ id: rawId }: { id: string }) {
  const { renewToken } = useSession();
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const me = useAtomValue(userAtom)!;
  const showPrompt = useSetAtom(showPromptAtom);
  const isNew = rawId === 'new';
  const queryClient = useQueryClient();
  const id = isNew ? 0 : /^\d+$/.test(rawId) ? Number(rawId) : -1;
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [draft, setDraft] = useState<UserDraft | null>(null);
  const [error, setError] = useState<number | null>(null);
  const title = isNew ? t('settings.newUser') : (loaded?.saved.username ?? t('settings.user'));

  useEffect(() => {
    if (id < 0) {
      setError(404);
      return;
    }
    let live = true;
    (async () => {
      // Through the query cache, fetched fresh: the draft is this page's own copy.
      const s = await queryClient.fetchQuery(settingsQuery());
      const saved = isNew ? draftFrom(s.defaults, s.createUserDir) : draftFrom(await queryClient.fetchQuery(userQuery(id)));
      if (!live) return;
      setLoaded({ saved, exec: s.enableExec, createUserDir: s.createUserDir });
      setDraft(saved);
    })().catch((err) => {
      if (!live) return;
      setError(statusOf(err));
      if (statusOf(err) !== 404) showError(err);
    });
    return () => {
      live = false;
    };
  }, [id, isNew, queryClient, showError]);

  const save = useAction(async () => {
    if (!draft || !loaded) return;
    try {
      if (isNew) {
        const password = await askCurrentPassword(showPrompt);
        const newId = await usersApi.create(userData(draft), password);
        void queryClient.invalidateQueries({ queryKey: keys.users });
        showSuccess(t('settings.userCreated'));
        navigate(newId ? `/settings/users/${newId}` : '/settings/users', { replace: true });
        return;
      }
      const which = changedFields(loaded.saved, draft);
      if (which.length === 0) {
        showSuccess(t('settings.userUpdated'));
        return;
      }
      const password = isSensitive(which) ? await askCurrentPassword(showPrompt) : undefined;
      const data = userData(draft);
      await usersApi.update(id, which, Object.fromEntries(which.map((f) => [f, data[f]])), password);
      void queryClient.invalidateQueries({ queryKey: keys.users });
      const saved = { ...draft, password: '' };
      setLoaded({ ...loaded, saved });
      setDraft(saved);
      // Editing oneself changes the token's claims (permissions, locale...).
      if (id === me.id) await renewToken();
      showSuccess(t('settings.userUpdated'));
    } catch (err) {
      showError(err);
      throw err;
    }
  });

  const remove = () =>
    showPrompt({
      name: 'confirm',
      props: {
        title: t('prompts.deleteUserTitle'),
        message: t('prompts.deleteUser'),
        confirm: t('buttons.delete'),
        onConfirm: async () => {
          try {
            const password = await askCurrentPassword(showPrompt);
            await usersApi.remove(id, password);
          } catch (err) {
            // 403 (the last admin, or not allowed) shows the forbidden message (spec §8).
            showError(statusOf(err) === 403 ? new Error(t('errors.forbidden')) : err);
            throw err;
          }
          void queryClient.invalidateQueries({ queryKey: keys.users });
          showSuccess(t('settings.userDeleted'));
          navigate('/settings/users');
        },
      },
    });

  return (
    <SettingsPage title={title}>
      {error !== null ? (
        <ErrorScreen code={error} />
      ) : !draft || !loaded ? (
        <p className="card-muted">{t('files.loading')}</p>
      ) : (
        <form
          className="card card-form"
          aria-labelledby="user-title"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run();
          }}
        >
          <h2 className="card-title" id="user-title">
            {isNew ? t('settings.newUser') : loaded.saved.username}
          </h2>
          <div className="card-body">
            <UserForm value={draft} onChange={setDraft} mode={isNew ? 'new' : 'edit'} exec={loaded.exec} createUserDir={loaded.createUserDir} />
          </div>
          <div className="card-actions">
            {!isNew && (
              <button type="button" className="button button-flat button-text-danger" onClick={remove}>
                {t('buttons.delete')}
              </button>
            )}
            <SubmitButton label={t('buttons.save')} state={save.state} disabled={isNew && (!draft.username.trim() || !draft.password)} />
          </div>
        </form>
      )}
    </SettingsPage>
  );
}
