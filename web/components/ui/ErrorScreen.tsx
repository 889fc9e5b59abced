import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { Icon, type IconName } from './Icon.tsx';
import { useTitle } from './useTitle.ts';

const SCREENS: Record<number, { icon: IconName; key: string }> = {
  0: { icon: 'cloudOff', key: 'errors.connection' },
  403: { icon: 'lock', key: 'errors.forbidden' },
  404: { icon: 'search', key: 'errors.notFound' },
  500: { icon: 'alert', key: 'errors.internal' },
  // fm answers 503 only when its database (PostgreSQL) is unreachable; it comes back by itself.
  503: { icon: 'cloudOff', key: 'scaleOut.databaseUnavailable' },
};

export interface ErrorScreenProps {
  code: number;
  /** The URL names a file (no trailing slash), so a 404 reads "Cannot find this file". */
  file?: boolean;
  /** Loads again what failed (a query's refetch); without it Retry reloads the page. */
  onRetry?: () => void;
  /** Where Home leads (a public share's root for its visitors). */
  home?: string;
}

/** The icon and message key shown for an error code. */
export function errorScreen(code: number, file = false): { icon: IconName; key: string } {
  return code === 404 && file ? { icon: 'search', key: 'errors.fileNotFound' } : (SCREENS[code] ?? SCREENS[500]);
}

/**
 * An icon and a message for 0 (connection), 403, 404, 500 and 503; any other code shows the 500 display
 * (spec §8 "Error catalogue"). Never a dead end: Back (when there is history), Home and Retry; a lost
 * connection retries by itself when the browser is online again.
 */
export function ErrorScreen({ code, file = false, onRetry, home = '/files/' }: ErrorScreenProps) {
  const { t } = useTranslation();
  const screen = errorScreen(code, file);
  useTitle(t(screen.key));
  const retry = onRetry ?? (() => window.location.reload());
  useEffect(() => {
    if (code !== 0) return;
    window.addEventListener('online', retry);
    return () => window.removeEventListener('online', retry);
  }, [code, retry]);
  return (
    <div className="error-screen">
      <div className="error-screen-message" role="alert">
        <Icon name={screen.icon} size={64} />
        <h2>{t(screen.key)}</h2>
      </div>
      <div className="error-screen-actions">
        {window.history.length > 1 && (
          <button type="button" className="button button-flat" onClick={() => window.history.back()}>
            {t('buttons.back')}
          </button>
        )}
        <Link href={home} className="button button-flat">
          {t('buttons.home')}
        </Link>
        <button type="button" className="button button-primary" onClick={retry}>
          {t('buttons.retry')}
        </button>
      </div>
    </div>
  );
}
