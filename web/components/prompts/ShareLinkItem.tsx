/** One link in the share dialog: its expiry, a lock when it has a password, copy and delete (after confirmation). */
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import type { ShareDto } from '../../api/shares.ts';
import { type Notifier, useNotify } from '../../actions/notify.ts';
import { settings } from '../../config.ts';
import { copyText } from '../../lib/clipboard.ts';
import { publicDownloadUrl, shareUrl } from '../../lib/shareLinks.ts';
import { PasswordBadge, useConfirmShareDelete } from '../share/shareLinkParts.tsx';
import { DropReceived } from '../share/DropReceived.tsx';
import { ShareDuration } from '../settings/ShareDuration.tsx';
import { IconButton } from '../ui/Button.tsx';

async function copy(text: string, done: string, notify: Notifier): Promise<void> {
  try {
    await copyText(text);
    notify.showSuccess(done);
  } catch (err) {
    notify.showError(err);
  }
}

interface ShareLinkItemProps {
  item: ResourceItem;
  link: ShareDto;
  /** Deletes the link; runs once the user confirmed, a rejection is reported by it. */
  onDelete: (link: ShareDto) => Promise<void>;
}

export function ShareLinkItem({ item, link, onDelete }: ShareLinkItemProps) {
  const { t } = useTranslation();
  const notify = useNotify();
  const confirmShareDelete = useConfirmShareDelete();
  const origin = window.location.origin;
  const confirmDelete = () => confirmShareDelete(link, () => onDelete(link));
  return (
    <li className="share-link" data-hash={link.hash}>
      <span className="share-link-expiry">
        <ShareDuration expire={link.expire} />
        {link.hasPassword && <PasswordBadge />}
        <DropReceived link={link} />
      </span>
      <span className="share-link-actions">
        <IconButton
          icon="link"
          label={t('buttons.copyLink')}
          onClick={() => void copy(shareUrl(origin, settings.BaseURL, link.hash), t('success.linkCopied'), notify)}
        />
        {!item.isDir && !link.hasPassword && (
          <IconButton
            icon="download"
            label={t('buttons.copyDownloadLink')}
            onClick={() => void copy(`${origin}${publicDownloadUrl(settings.BaseURL, link.hash)}`, t('success.linkCopied'), notify)}
          />
        )}
        <IconButton icon="trash" label={t('buttons.delete')} onClick={confirmDelete} />
      </span>
    </li>
  );
}
