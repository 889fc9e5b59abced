import { useAtomValue, useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { PROJECT_URL, showExternalLinks } from '../../config.ts';
import { dismissNoticeAtom, noticesAtom } from '../../state/notifications.ts';
import { Icon } from './Icon.tsx';

/** Bottom-right notices (at most five); errors carry a close button and a report-issue link. */
export function Notifications() {
  const notices = useAtomValue(noticesAtom);
  const dismiss = useSetAtom(dismissNoticeAtom);
  const { t } = useTranslation();
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'}>
          <Icon name={n.kind === 'error' ? 'alert' : 'check'} />
          <div className="notice-message">
            <p>{n.key ? t(n.key) : n.message}</p>
            {n.detail && <p className="notice-detail">{n.detail}</p>}
          </div>
          {n.kind === 'error' && (
            <div className="notice-actions">
              {showExternalLinks && (
                <a className="notice-link" href={`${PROJECT_URL}/issues/new`} target="_blank" rel="noopener noreferrer">
                  {t('buttons.reportIssue')}
                </a>
              )}
              <button type="button" className="icon-button" aria-label={t('buttons.close')} title={t('buttons.close')} onClick={() => dismiss(n.id)}>
                <Icon name="close" size={18} />
              </button>
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
