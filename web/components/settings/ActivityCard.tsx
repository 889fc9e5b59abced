/** The profile's "Your activity": the signed-in user's own audit log entries, newest first, paged. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { NO_FILTER } from '../../api/audit.ts';
import { auditQuery } from '../../api/queries.ts';
import { useServerData } from '../ui/useServerData.ts';
import { ActivityTable } from './ActivityTable.tsx';

const PAGE = 20;

export function ActivityCard() {
  const { t } = useTranslation();
  const [offset, setOffset] = useState(0);
  const { data: page, error, retry } = useServerData(auditQuery(NO_FILTER, PAGE, offset));
  return (
    <section className="card card-wide" aria-labelledby="own-activity-title">
      <h2 className="card-title" id="own-activity-title">
        {t('audit.yourActivity')}
      </h2>
      <ActivityTable
        page={page}
        error={error}
        retry={retry}
        offset={offset}
        limit={PAGE}
        onOffset={setOffset}
        showActor={false}
        label={t('audit.yourActivity')}
      />
    </section>
  );
}
