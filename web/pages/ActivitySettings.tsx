/** /settings/activity (admins): the audit log, filtered by user, action, path and time, paged, exported as CSV or JSON. */
import { useQuery } from '@tanstack/react-query';
import { useAtom } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_ACTIONS, AUDIT_MAX_LIMIT, exportFile, type AuditAction, type AuditFilter } from '../api/audit.ts';
import { auditQuery, auditStatusQuery } from '../api/queries.ts';
import { useNotify } from '../actions/notify.ts';
import { ActivityTable } from '../components/settings/ActivityTable.tsx';
import { AuditRetentionForm } from '../components/settings/AuditRetentionForm.tsx';
import { SettingsPage } from '../components/settings/SettingsTabs.tsx';
import { ActionButton } from '../components/ui/Button.tsx';
import { useServerData } from '../components/ui/useServerData.ts';
import { activityFilterAtom, activityOffsetAtom } from '../state/audit.ts';

const PAGE = 50;

/** A datetime-local value (the browser's time zone) as ISO 8601, '' for none. */
const toIso = (local: string) => (local ? new Date(local).toISOString() : '');
/** An ISO date as a datetime-local value. */
function toLocal(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** Saves a blob as a file through a temporary link. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function Filters({ value, onApply }: { value: AuditFilter; onApply: (f: AuditFilter) => void }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState(value);
  const set = (patch: Partial<AuditFilter>) => setDraft((d) => ({ ...d, ...patch }));
  return (
    <form
      className="card-body activity-filters"
      aria-label={t('audit.filters')}
      onSubmit={(e) => {
        e.preventDefault();
        onApply(draft);
      }}
    >
      <label className="field">
        <span>{t('settings.user')}</span>
        <input className="input" name="user" value={draft.user} onChange={(e) => set({ user: e.target.value.trim() })} autoComplete="off" />
      </label>
      <label className="field">
        <span>{t('audit.action')}</span>
        <select className="input" name="action" value={draft.action} onChange={(e) => set({ action: e.target.value as AuditAction | '' })}>
          <option value="">{t('audit.any')}</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>{t('audit.pathPrefix')}</span>
        <input className="input" name="path" value={draft.path} placeholder="/" onChange={(e) => set({ path: e.target.value })} autoComplete="off" />
      </label>
      <label className="field">
        <span>{t('audit.since')}</span>
        <input className="input" type="datetime-local" name="since" value={toLocal(draft.since)} onChange={(e) => set({ since: toIso(e.target.value) })} />
      </label>
      <label className="field">
        <span>{t('audit.until')}</span>
        <input className="input" type="datetime-local" name="until" value={toLocal(draft.until)} onChange={(e) => set({ until: toIso(e.target.value) })} />
      </label>
      <button type="submit" className="button button-primary">
        {t('audit.apply')}
      </button>
    </form>
  );
}

export default function ActivitySettingsPage() {
  const { t } = useTranslation();
  const { showError } = useNotify();
  const [filter, setFilter] = useAtom(activityFilterAtom);
  const [offset, setOffset] = useAtom(activityOffsetAtom);
  const { data: page, error, retry } = useServerData(auditQuery(filter, PAGE, offset));
  const status = useQuery(auditStatusQuery()).data;
  const title = t('audit.title');

  const download = async (format: 'csv' | 'json') => {
    try {
      save(await exportFile(filter, format, AUDIT_MAX_LIMIT), `fm-audit.${format}`);
    } catch (err) {
      showError(err);
      throw err;
    }
  };

  return (
    <SettingsPage title={title}>
      <section className="card card-wide" aria-labelledby="activity-title">
        <div className="card-header activity-header">
          <h2 className="card-title" id="activity-title">
            {title}
          </h2>
          <div className="card-actions">
            <ActionButton variant="flat" onAction={() => download('csv')}>
              {t('audit.exportCsv')}
            </ActionButton>
            <ActionButton variant="flat" onAction={() => download('json')}>
              {t('audit.exportJson')}
            </ActionButton>
          </div>
        </div>
        {status && status.lost > 0 && (
          <p className="card-body activity-failed" role="alert">
            {t('audit.lost', { count: status.lost })}
          </p>
        )}
        {status && <AuditRetentionForm key={status.retentionDays} days={status.retentionDays} />}
        <Filters
          value={filter}
          onApply={(f) => {
            setFilter(f);
            setOffset(0);
          }}
        />
        <ActivityTable page={page} error={error} retry={retry} offset={offset} limit={PAGE} onOffset={setOffset} showActor label={title} />
      </section>
    </SettingsPage>
  );
}
