/** The share dialog's upload-only option of a folder, with the link's optional limits. */
import { useTranslation } from 'react-i18next';
import { type DropDraft, parseCountLimit, parseSizeLimit } from '../../lib/dropLimits.ts';

export function DropOptions({ draft, onChange }: { draft: DropDraft; onChange: (d: DropDraft) => void }) {
  const { t } = useTranslation();
  const set = (patch: Partial<DropDraft>) => onChange({ ...draft, ...patch });
  return (
    <fieldset className="drop-options">
      <legend className="visually-hidden">{t('drop.uploadOnly')}</legend>
      <label className="checkbox">
        <input type="checkbox" name="uploadOnly" checked={draft.uploadOnly} onChange={(e) => set({ uploadOnly: e.target.checked })} />
        <span>{t('drop.uploadOnly')}</span>
      </label>
      <p className="field-help">{t('drop.uploadOnlyHelp')}</p>
      {draft.uploadOnly && (
        <div className="drop-limit-fields">
          <label className="field">
            <span>{t('drop.maxFiles')}</span>
            <input
              className="input"
              name="maxFiles"
              inputMode="numeric"
              placeholder={t('drop.noLimit')}
              value={draft.maxFiles}
              aria-invalid={parseCountLimit(draft.maxFiles) === undefined}
              onChange={(e) => set({ maxFiles: e.target.value })}
            />
          </label>
          <label className="field">
            <span>{t('drop.maxFileSize')}</span>
            <input
              className="input"
              name="maxFileSize"
              placeholder={t('drop.noLimit')}
              value={draft.maxFileSize}
              aria-invalid={parseSizeLimit(draft.maxFileSize) === undefined}
              onChange={(e) => set({ maxFileSize: e.target.value })}
            />
          </label>
          <label className="field">
            <span>{t('drop.maxBytes')}</span>
            <input
              className="input"
              name="maxBytes"
              placeholder={t('drop.noLimit')}
              value={draft.maxBytes}
              aria-invalid={parseSizeLimit(draft.maxBytes) === undefined}
              onChange={(e) => set({ maxBytes: e.target.value })}
            />
          </label>
        </div>
      )}
    </fieldset>
  );
}
