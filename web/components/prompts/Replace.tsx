/** Conflict prompts: replace (uploads: Cancel, Continue, Replace) and replace-rename (copy, move, paste, drop: Cancel, Rename, Replace). */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom, type ConflictChoice as Choice } from '../../state/prompts.ts';
import { useAction } from '../ui/useAction.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

export function ReplaceRenamePrompt({
  onChoose,
  message,
  renameLabel,
}: {
  onChoose: (choice: Choice) => Promise<void>;
  message?: string;
  renameLabel?: string;
}) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const pick = (choice: Choice) => {
    close();
    void onChoose(choice).catch(() => undefined);
  };
  return (
    <PromptFrame
      title={t('prompts.replace')}
      onSubmit={() => pick('rename')}
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={renameLabel ?? t('buttons.rename')} autoFocus />
          <button type="button" className="button button-danger" onClick={() => pick('overwrite')}>
            {t('buttons.replace')}
          </button>
        </>
      }
    >
      <p>{message ?? t('prompts.replaceRenameMessage')}</p>
    </PromptFrame>
  );
}

/** Upload conflicts: Continue keeps both (rename), Replace overwrites; Enter replaces. */
export function ReplacePrompt({ onChoose }: { onChoose: (choice: Choice) => Promise<void> }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const replace = useAction(async () => {
    close();
    await onChoose('overwrite');
  });
  return (
    <PromptFrame
      title={t('prompts.replace')}
      onSubmit={() => void replace.run()}
      buttons={
        <>
          <CancelButton />
          <button
            type="button"
            className="button button-flat"
            onClick={() => {
              close();
              void onChoose('rename').catch(() => undefined);
            }}
          >
            {t('buttons.continue')}
          </button>
          <SubmitButton label={t('buttons.replace')} variant="danger" state={replace.state} autoFocus />
        </>
      }
    >
      <p>{t('prompts.replaceMessage')}</p>
    </PromptFrame>
  );
}
