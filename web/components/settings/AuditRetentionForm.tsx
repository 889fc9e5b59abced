/** How long the audit log keeps entries (settings.auditRetention), set in days on the Activity page. */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/queries.ts';
import { update } from '../../api/settings.ts';
import { useNotify } from '../../actions/notify.ts';
import { ActionButton } from '../ui/Button.tsx';

const DAY = 86_400;

export function AuditRetentionForm({ days }: { days: number }) {
  const { t } = useTranslation();
  const { showError, showSuccess } = useNotify();
  const queryClient = useQueryClient();
  const [value, setValue] = useState(String(days));
  const valid = /^\d{1,5}$/.test(value) && Number(value) >= 1;
  const save = async () => {
    try {
      await update({ auditRetention: Number(value) * DAY });
    } catch (err) {
      showError(err);
      throw err;
    }
    void queryClient.invalidateQueries({ queryKey: keys.audit });
    void queryClient.invalidateQueries({ queryKey: keys.settings });
    showSuccess(t('settings.settingsUpdated'));
  };
  return (
    <div className="card-body activity-retention">
      <label className="field">
        <span>{t('audit.retentionDays')}</span>
        <input className="input" name="retention" inputMode="numeric" value={value} aria-invalid={!valid} onChange={(e) => setValue(e.target.value.trim())} />
      </label>
      <ActionButton variant="flat" disabled={!valid || Number(value) === days} onAction={save}>
        {t('buttons.update')}
      </ActionButton>
    </div>
  );
}
