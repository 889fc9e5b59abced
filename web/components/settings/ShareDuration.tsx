import { useTranslation } from 'react-i18next';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatRelative } from '../../lib/format.ts';

/** Relative time until expiry, or 'permanent'. */
export function ShareDuration({ expire }: { expire: number }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  if (expire === 0) return <>{t('settings.permanent')}</>;
  const d = new Date(expire * 1000);
  return (
    <time dateTime={d.toISOString()} title={formatExact(d, tag)}>
      {formatRelative(d, tag)}
    </time>
  );
}
