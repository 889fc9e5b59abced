import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { usage, type Usage } from '../../api/resources.ts';
import { useNotify } from '../../actions/notify.ts';
import { formatSize } from '../../lib/format.ts';
import { useLocaleTag } from '../../i18n/index.ts';

/** The used-disk bar of the sidebar for the folder on view (percent rounded, binary sizes). */
export function DiskUsage({ path }: { path: string }) {
  const { showError } = useNotify();
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const [data, setData] = useState<Usage | null>(null);
  useEffect(() => {
    const ac = new AbortController();
    usage(path, ac.signal).then(setData, (err) => {
      if (!ac.signal.aborted) showError(err);
    });
    return () => ac.abort();
  }, [path]);
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
