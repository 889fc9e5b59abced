/**
 * /analyze/{path}: the storage analyzer. A treemap of the folder's largest entries (from the
 * server's live index), a folder tile opens that folder, the breadcrumbs go back; the table
 * beside lists the same entries with exact figures. While the index is building or off, says so.
 */
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { statusOf } from '../api/client.ts';
import { analyzeQuery } from '../api/queries.ts';
import { AnalyzeTable } from '../components/analyze/AnalyzeTable.tsx';
import { Treemap } from '../components/analyze/Treemap.tsx';
import { Breadcrumbs } from '../components/files/Breadcrumbs.tsx';
import { Header } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { useTitle } from '../components/ui/useTitle.ts';
import { useLocaleTag } from '../i18n/index.ts';
import { formatSize } from '../lib/format.ts';
import { currentAppPath } from '../lib/navigate.ts';
import { analyzeUrl, pathFromAnalyzeUrl } from '../lib/paths.ts';

export default function AnalyzePage() {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const [, navigate] = useLocation();
  const path = pathFromAnalyzeUrl(currentAppPath().split('?')[0]) ?? '/';
  const query = useQuery(analyzeQuery(path));
  const title = t('analyzer.title');
  useTitle(title);
  const data = query.data;

  let body: React.ReactNode = null;
  if (query.isError) body = <ErrorScreen code={statusOf(query.error)} onRetry={() => void query.refetch()} />;
  else if (data && data.state !== 'ready') body = <p className="analyze-message">{t(data.state === 'off' ? 'analyzer.off' : 'analyzer.building')}</p>;
  else if (data?.root) {
    const root = data.root;
    body = (
      <>
        <p className="analyze-total">{t('analyzer.total', { size: formatSize(root.size, tag), count: root.count.toLocaleString(tag) })}</p>
        {root.children?.length ? (
          <div className="analyze-body">
            <Treemap root={root} onOpen={(e) => navigate(analyzeUrl(e.path))} />
            <AnalyzeTable root={root} />
          </div>
        ) : (
          <p className="analyze-message">{t('analyzer.empty')}</p>
        )}
      </>
    );
  }

  return (
    <Layout header={<Header title={title} />}>
      <div className="analyze">
        <h1 className="visually-hidden">{title}</h1>
        <Breadcrumbs path={path} folderUrl={analyzeUrl} />
        {body}
      </div>
    </Layout>
  );
}
