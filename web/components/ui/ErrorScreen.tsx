import { useTranslation } from 'react-i18next';
import { Icon, type IconName } from './Icon.tsx';
import { useTitle } from './useTitle.ts';

const SCREENS: Record<number, { icon: IconName; key: string }> = {
  0: { icon: 'cloudOff', key: 'errors.connection' },
  403: { icon: 'lock', key: 'errors.forbidden' },
  404: { icon: 'search', key: 'errors.notFound' },
  500: { icon: 'alert', key: 'errors.internal' },
};

/** The icon and message key shown for an error code. */
export function errorScreen(code: number, file = false): { icon: IconName; key: string } {
  return code === 404 && file ? { icon: 'search', key: 'errors.fileNotFound' } : (SCREENS[code] ?? SCREENS[500]);
}

/**
 * An icon and a message for 0 (connection), 403, 404 and 500; any other code shows the 500 display.
 * `file`: the URL names a file (no trailing slash), so a 404 reads "Cannot find this file" rather
 * than "This location can't be reached." (spec §8 "Error catalogue").
 */
export function ErrorScreen({ code, file = false }: { code: number; file?: boolean }) {
  const { t } = useTranslation();
  const screen = errorScreen(code, file);
  useTitle(t(screen.key));
  return (
    <div className="error-screen" role="alert">
      <Icon name={screen.icon} size={64} />
      <h2>{t(screen.key)}</h2>
    </div>
  );
}
