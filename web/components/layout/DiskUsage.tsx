import { useTranslation } from 'react-i18next';
import { usageQuery } from '../../api/queries.ts';
import { useServerData } from '../ui/useServerData.ts';
import { formatSize } from '../../lib/format.ts';
import { useLocaleTag } from '../../i18n/index.ts';

/** The used-disk bar of the sidebar for the folder on view (percent rounded, binary sizes). */
export function DiskUsage({ path }: { path: string }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const { data } = useServerData(usageQuery(path));
  if (!data || data.total <= 0) return null;
  const percent = Math.round((data.used / data.total) * 100);
  const text = t('sidebar.diskUsage', { used: formatSize(data.used, tag), total: formatSize(data.total, tag) });
  return (
    <div className="disk-usage">
      <div className="disk-usage-bar" role="progressbar" aria-label={text} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <div style={{ inlineSize: `${percent}%` }} />
      </div>
      <p>{text}</p>
    </div>
  );
}
