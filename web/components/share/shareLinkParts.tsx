/** What the share dialog and the share settings table show alike for a link. */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import type { ShareDto } from '../../api/shares.ts';
import { displayName } from '../../lib/names.ts';
import { showPromptAtom } from '../../state/prompts.ts';
import { Icon } from '../ui/Icon.tsx';

/** The lock shown beside a link that has a password. */
export function PasswordBadge() {
  const { t } = useTranslation();
  return (
    <span className="badge" title={t('settings.passwordProtected')}>
      <Icon name="lock" size={14} />
      <span className="visually-hidden">{t('settings.passwordProtected')}</span>
    </span>
  );
}

/** Asks before a link is deleted (a stray click deletes nothing); `onConfirm` deletes it. */
export function useConfirmShareDelete(): (link: ShareDto, onConfirm: () => Promise<void>) => void {
  const { t } = useTranslation();
  const showPrompt = useSetAtom(showPromptAtom);
  return (link, onConfirm) =>
    showPrompt({
      name: 'confirm',
      props: {
        title: t('prompts.shareDeleteTitle'),
        message: t('prompts.shareDeleteMessage', { path: displayName(link.path) }),
        confirm: t('buttons.delete'),
        onConfirm,
      },
    });
}
