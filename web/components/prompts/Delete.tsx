import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import { useFileOps } from '../../actions/files.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';
import { displayName } from '../../lib/names.ts';

/** Confirms deleting the selection; the prompt closes first, then the items go in parallel. */
export function DeletePrompt({ items }: { items: ResourceItem[] }) {
  const { deleteItems } = useFileOps();
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const submit = () => {
    close();
    void deleteItems(items);
  };
  return (
    <PromptFrame
      title={t('prompts.deleteTitle')}
      onSubmit={submit}
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={t('buttons.delete')} variant="danger" autoFocus />
        </>
      }
    >
      <p>
        {items.length === 1
          ? t('prompts.deleteMessageSingle', { name: displayName(items[0].name) })
          : t('prompts.deleteMessageMultiple', { count: items.length })}
      </p>
    </PromptFrame>
  );
}
