/** The analyzer's entries as a table: the treemap's content for screen readers and exact figures for everyone. */
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import type { AnalyzeEntryDto } from '../../api/analyze.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatSize } from '../../lib/format.ts';
import { analyzeUrl } from '../../lib/paths.ts';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';

export function AnalyzeTable({ root }: { root: AnalyzeEntryDto }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const share = (size: number) => (root.size > 0 ? `${((size / root.size) * 100).toLocaleString(tag, { maximumFractionDigits: 1 })} %` : '–');
  const count = (n: number) => n.toLocaleString(tag);
  return (
    <table className="analyze-table">
      <caption className="visually-hidden">{t('analyzer.tableCaption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('analyzer.name')}</th>
          <th scope="col">{t('analyzer.size')}</th>
          <th scope="col">{t('analyzer.share')}</th>
          <th scope="col">{t('analyzer.entries')}</th>
        </tr>
      </thead>
      <tbody>
        {(root.children ?? []).map((e) => (
          <tr key={e.path}>
            <th scope="row">
              <span className="analyze-entry">
                <Icon name={e.isDir ? 'folder' : 'file'} size={18} />
                {e.isDir ? (
                  <Link href={analyzeUrl(e.path)}>
                    <Name name={e.name} />
                  </Link>
                ) : (
                  <Name name={e.name} />
                )}
              </span>
            </th>
            <td>{formatSize(e.size, tag)}</td>
            <td>{share(e.size)}</td>
            <td>{e.isDir ? count(e.count) : ''}</td>
          </tr>
        ))}
        {root.rest && (
          <tr>
            <th scope="row">{t('analyzer.rest', { count: root.rest.count })}</th>
            <td>{formatSize(root.rest.size, tag)}</td>
            <td>{share(root.rest.size)}</td>
            <td />
          </tr>
        )}
      </tbody>
    </table>
  );
}
