import { useTranslation } from 'react-i18next';
import { usageQuery } from '../../api/queries.ts';
import { useServerData } from '../ui/useServerData.ts';
import { formatSize } from '../../lib/format.ts';
import { useLocaleTag } from '../../i18n/index.ts';

/**
 * The usage bar of the sidebar for the folder on view (percent rounded, binary sizes): against the
 * user's quota when one is set (the server then answers total = quota), else the disk.
 */
export function DiskUsage({ path }: { path: string }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const { data } = useServerData(usageQuery(path));
  if (!data) return null;
  const quota = (data.quota ?? 0) > 0;
  const files =
    (data.quotaFiles ?? 0) > 0 ? t('quota.files', { files: (data.files ?? 0).toLocaleString(tag), quota: data.quotaFiles!.toLocaleString(tag) }) : '';
  if (data.total <= 0 && !files) return null;
  const percent = data.total > 0 ? Math.min(100, Math.round((data.used / data.total) * 100)) : 0;
  const sizes = { used: formatSize(data.used, tag), total: formatSize(data.total, tag) };
  const text = data.total > 0 ? t(quota ? 'quota.usage' : 'sidebar.diskUsage', sizes) : '';
  return (
    <div className="disk-usage" data-quota={quota || undefined}>
      {text && (
        <div
          className={`disk-usage-bar${quota && percent >= 90 ? ' disk-usage-full' : ''}`}
          role="progressbar"
          aria-label={text}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <div style={{ inlineSize: `${percent}%` }} />
        </div>
      )}
      {text && <p>{text}</p>}
      {files && <p>{files}</p>}
    </div>
  );
}
