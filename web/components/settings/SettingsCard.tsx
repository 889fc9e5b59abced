import { useQueryClient } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { keys } from '../../api/queries.ts';
import { useNotify } from '../../actions/notify.ts';
import { SubmitButton } from '../prompts/PromptFrame.tsx';
import { useAction } from '../ui/useAction.ts';

/** A card that is a form with its own Update button. */
export function SettingsCard({ title, children, onSave, wide }: { title: string; children: ReactNode; onSave: () => Promise<void>; wide?: boolean }) {
  const { showError } = useNotify();
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const action = useAction(async () => {
    try {
      await onSave();
    } catch (err) {
      showError(err);
      throw err;
    }
    void queryClient.invalidateQueries({ queryKey: keys.settings });
  });
  return (
    <form
      className={`card${wide ? ' card-wide' : ''}`}
      aria-label={title}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <h2 className="card-title">{title}</h2>
      <div className="card-body">{children}</div>
      <div className="card-actions">
        <SubmitButton label={t('buttons.update')} state={action.state} />
      </div>
    </form>
  );
}
