/** What an upload-only link received, for share management: the count and the last upload's time. */
import { useTranslation } from 'react-i18next';
import type { ShareDto } from '../../api/shares.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatRelative } from '../../lib/format.ts';
import { Icon } from '../ui/Icon.tsx';

export function DropReceived({ link }: { link: ShareDto }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  if (!link.uploadOnly) return null;
  const received = link.received ?? { files: 0, bytes: 0, last: 0 };
  const last = received.last > 0 ? new Date(received.last * 1000) : undefined;
  return (
    <span className="drop-received" data-received={received.files}>
      <span className="badge">
        <Icon name="upload" size={14} /> {t('drop.uploadOnly')}
      </span>{' '}
      {t('drop.received', { count: received.files })}
      {last && (
        <>
          {' · '}
          {t('drop.lastUpload')}{' '}
          <time dateTime={last.toISOString()} title={formatExact(last, tag)}>
            {formatRelative(last, tag)}
          </time>
        </>
      )}
    </span>
  );
}
