/** The trash card of /settings/global: how many days deleted items are kept (0 = deletes remove at once). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import * as settingsApi from '../../api/settings.ts';
import type { SettingsDto } from '../../api/settings.ts';
import { useNotify } from '../../actions/notify.ts';
import { SettingsCard as Card } from './SettingsCard.tsx';

const DAY = 86_400;

export function TrashSettingsCard({ s }: { s: SettingsDto }) {
  const { showSuccess } = useNotify();
  const { t } = useTranslation();
  const [days, setDays] = useState(String(Math.round((s.trashRetention / DAY) * 100) / 100));
  const save = async () => {
    const n = Math.max(0, Number(days) || 0);
    await settingsApi.update({ trashRetention: Math.round(n * DAY) });
    setDays(String(n));
    showSuccess(t('settings.settingsUpdated'));
  };
  return (
    <Card title={t('trash.title')} onSave={save}>
      <label className="field">
        <span>{t('trash.retention')}</span>
        <input className="input" name="trashRetention" type="number" min={0} step={1} value={days} onChange={(e) => setDays(e.target.value)} />
        <small className="field-help">{t('trash.retentionHelp')}</small>
      </label>
    </Card>
  );
}
