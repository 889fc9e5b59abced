/** A yes/no confirmation (delete a user, delete a share link, abort uploads): Enter confirms. */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom, type ConfirmProps } from '../../state/prompts.ts';
import { useAction } from '../ui/useAction.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

export function ConfirmPrompt({ title, message, confirm, danger = true, onConfirm }: ConfirmProps) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const action = useAction(async () => {
    close();
    await onConfirm();
  });
  return (
    <PromptFrame
      title={title}
      onSubmit={() => void action.run()}
      buttons={
        <>
          <CancelButton label={t('buttons.cancel')} />
          <SubmitButton label={confirm} variant={danger ? 'danger' : 'primary'} state={action.state} autoFocus />
        </>
      }
    >
      <p>{message}</p>
    </PromptFrame>
  );
}
