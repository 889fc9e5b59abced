import { useTranslation } from 'react-i18next';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatRelative, isShowableDate, NO_DATE } from '../../lib/format.ts';

/** Relative time until expiry, or 'permanent'; a dash (raw value in the title) for a date past showing. */
export function ShareDuration({ expire }: { expire: number }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  if (expire === 0) return <>{t('settings.permanent')}</>;
  const d = new Date(expire * 1000);
  if (!isShowableDate(d)) return <span title={String(expire)}>{NO_DATE}</span>;
  return (
    <time dateTime={d.toISOString()} title={formatExact(d, tag)}>
      {formatRelative(d, tag)}
    </time>
  );
}
