/** The drop page's uploads: name, a progress bar, and what became of each (sent, resumed, or why it failed). */
import { useTranslation } from 'react-i18next';
import type { DropFailure } from '../../actions/dropUpload.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { errorMessageKey } from '../../lib/errorMessage.ts';
import { formatSize } from '../../lib/format.ts';
import { displayName } from '../../lib/names.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import type { DropItem } from './useDrops.ts';

/** The drop limits' codes (src/services/drops/counters.ts) → the page's own sentences. */
const LIMIT_KEYS: Record<string, string> = {
  drop_files: 'drop.errorFiles',
  drop_bytes: 'drop.errorBytes',
  drop_file_size: 'drop.errorFileSize',
  connection: 'errors.connection',
};

function failureKey(f: DropFailure): string {
  return LIMIT_KEYS[f.code] ?? errorMessageKey(f.status, f.code) ?? 'errors.internal';
}

export function DropList({ items, onRetry }: { items: DropItem[]; onRetry: (id: number) => void }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  if (items.length === 0) return null;
  return (
    <ul className="drop-list" aria-label={t('drop.uploads')}>
      {items.map((item) => {
        const percent = item.size > 0 ? Math.round((item.sent / item.size) * 100) : item.status === 'done' ? 100 : 0;
        const label = displayName(item.path);
        return (
          <li key={item.id} className={`drop-item drop-item-${item.status}`} data-status={item.status}>
            <span className="drop-item-name" title={label}>
              {label}
            </span>
            <span className="drop-item-size">{formatSize(item.size, tag)}</span>
            <progress className="drop-item-progress" max={100} value={percent} aria-label={t('drop.progressOf', { name: label })} />
            <span className="drop-item-status" role={item.status === 'failed' ? 'alert' : undefined}>
              {item.status === 'done' && <Icon name="check" size={16} />}
              {item.status === 'failed' && <Icon name="alert" size={16} />}
              {item.status === 'failed' && item.failure
                ? t(failureKey(item.failure))
                : item.status === 'sending' && item.resumed
                  ? t('drop.resuming', { percent })
                  : t(`drop.status.${item.status}`, { percent })}
            </span>
            {item.status === 'failed' && (
              <IconButton icon="retry" label={t('drop.retry', { name: label })} className="drop-item-retry" onClick={() => onRetry(item.id)} />
            )}
          </li>
        );
      })}
    </ul>
  );
}
