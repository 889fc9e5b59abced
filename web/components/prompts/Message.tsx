/** The error and success prompts: a message and an OK button. */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom } from '../../state/prompts.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';

export function ErrorPrompt({ message }: { message?: string }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  return (
    <PromptFrame title={t('prompts.error')} onSubmit={() => close()} buttons={<SubmitButton label={t('buttons.ok')} autoFocus />}>
      <p>{message || t('prompts.somethingWentWrong')}</p>
    </PromptFrame>
  );
}

export function SuccessPrompt({ message }: { message?: string }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  return (
    <PromptFrame title={t('prompts.success')} onSubmit={() => close()} buttons={<SubmitButton label={t('buttons.ok')} autoFocus />}>
      <p>{message}</p>
    </PromptFrame>
  );
}
