/** A page of audit log entries as a table, with the pager under it (Settings → Activity, the profile's "Your activity"). */
import { useTranslation } from 'react-i18next';
import type { AuditEntry, AuditPage } from '../../api/audit.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatSize } from '../../lib/format.ts';
import { ErrorScreen } from '../ui/ErrorScreen.tsx';
import { Name } from '../ui/Name.tsx';

export interface ActivityTableProps {
  page: AuditPage | null;
  error: number | null;
  retry: () => void;
  offset: number;
  limit: number;
  onOffset: (offset: number) => void;
  /** Show who acted (admins' page); a user's own activity leaves it out. */
  showActor: boolean;
  /** The accessible name of the table. */
  label: string;
}

export function ActivityTable({ page, error, retry, offset, limit, onOffset, showActor, label }: ActivityTableProps) {
  const { t } = useTranslation();
  if (error !== null) return <ErrorScreen code={error} onRetry={retry} />;
  if (page === null) return <p className="card-body card-muted">{t('files.loading')}</p>;
  if (page.total === 0) return <p className="card-body card-muted">{t('audit.empty')}</p>;
  const last = Math.min(offset + page.entries.length, page.total);
  return (
    <>
      {/* Scrolls sideways on a small screen: focusable, so the keyboard can scroll it too. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1) */}
      <section className="table-wrap" aria-label={t('audit.entries')} tabIndex={0}>
        <table className="table activity-table" aria-label={label}>
          <thead>
            <tr>
              <th scope="col">{t('audit.time')}</th>
              {showActor && <th scope="col">{t('settings.user')}</th>}
              <th scope="col">{t('audit.action')}</th>
              <th scope="col">{t('settings.path')}</th>
              <th scope="col">{t('files.size')}</th>
              <th scope="col">{t('audit.status')}</th>
              <th scope="col">{t('audit.address')}</th>
              <th scope="col">{t('audit.detail')}</th>
            </tr>
          </thead>
          <tbody>
            {page.entries.map((e) => (
              <ActivityRow key={`${e.time}-${e.action}-${e.path}-${e.address}`} entry={e} showActor={showActor} />
            ))}
          </tbody>
        </table>
      </section>
      <nav className="activity-pager" aria-label={t('audit.pages')}>
        <button type="button" className="button button-flat" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
          {t('buttons.previous')}
        </button>
        <span aria-live="polite">{t('audit.range', { first: offset + 1, last, total: page.total })}</span>
        <button type="button" className="button button-flat" disabled={last >= page.total} onClick={() => onOffset(offset + limit)}>
          {t('buttons.next')}
        </button>
      </nav>
    </>
  );
}

function ActivityRow({ entry: e, showActor }: { entry: AuditEntry; showActor: boolean }) {
  const tag = useLocaleTag();
  const failed = e.action !== 'command' && e.status !== null && e.status >= 400;
  return (
    <tr data-action={e.action}>
      <td className="activity-time">
        <time dateTime={e.time}>{formatExact(new Date(e.time), tag)}</time>
      </td>
      {showActor && <td>{e.actor ?? (e.share ? `🔗 ${e.share}` : '—')}</td>}
      <td>
        <span className={`activity-action${failed ? ' activity-failed' : ''}`}>{e.action}</span>
      </td>
      <td className="table-path">
        {e.path !== null && <Name name={e.path} />}
        {e.dest !== null && (
          <>
            {' → '}
            <Name name={e.dest} />
          </>
        )}
      </td>
      <td>{e.bytes === null ? '' : formatSize(e.bytes, tag)}</td>
      <td>{e.status ?? ''}</td>
      <td>{e.address ?? ''}</td>
      <td className="table-path">
        {[e.share && showActor ? '' : e.share, e.detail, e.duration === null ? '' : `${e.duration} ms`].filter(Boolean).join(' · ')}
      </td>
    </tr>
  );
}
