import { useTranslation } from 'react-i18next';
import { useNotify } from '../../actions/notify.ts';
import { copyText } from '../../lib/clipboard.ts';

/** Copies a link to the clipboard and says so (or shows why it failed). */
export function useCopyLink(): (text: string) => Promise<void> {
  const { t } = useTranslation();
  const { showError, showSuccess } = useNotify();
  return async (text) => {
    try {
      await copyText(text);
      showSuccess(t('success.linkCopied'));
    } catch (err) {
      showError(err);
    }
  };
}
