/** The quota fields of the user form (docs/quotas.md): a byte quota and an entry quota, blank for none. */
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { quotaFilesFromText, quotaFromText, type UserDraft } from '../../lib/userDraft.ts';

export interface QuotaFieldsProps {
  value: UserDraft;
  onChange: (patch: Partial<UserDraft>) => void;
}

export function QuotaFields({ value: d, onChange }: QuotaFieldsProps) {
  const { t } = useTranslation();
  const id = useId();
  const badQuota = Number.isNaN(quotaFromText(d.quota));
  const badFiles = Number.isNaN(quotaFilesFromText(d.quotaFiles));
  return (
    <>
      <label className="field">
        <span>{t('quota.label')}</span>
        <input
          className={badQuota ? 'input input-bad' : 'input'}
          name="quota"
          inputMode="decimal"
          spellCheck={false}
          placeholder={t('quota.none')}
          aria-invalid={badQuota}
          aria-describedby={`${id}-quota`}
          value={d.quota}
          onChange={(e) => onChange({ quota: e.target.value })}
        />
        <small className="field-help" id={`${id}-quota`}>
          {badQuota ? t('quota.invalidSize') : t('quota.help')}
        </small>
      </label>
      <label className="field">
        <span>{t('quota.filesLabel')}</span>
        <input
          className={badFiles ? 'input input-bad' : 'input'}
          name="quotaFiles"
          inputMode="numeric"
          spellCheck={false}
          placeholder={t('quota.none')}
          aria-invalid={badFiles}
          aria-describedby={`${id}-files`}
          value={d.quotaFiles}
          onChange={(e) => onChange({ quotaFiles: e.target.value })}
        />
        <small className="field-help" id={`${id}-files`}>
          {badFiles ? t('quota.invalidCount') : t('quota.filesHelp')}
        </small>
      </label>
    </>
  );
}
