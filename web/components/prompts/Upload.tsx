/** The upload prompt: a file picker and a folder picker (spec §2 "Upload prompt"). */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom } from '../../state/prompts.ts';
import { Icon } from '../ui/Icon.tsx';
import { CancelButton, PromptFrame } from './PromptFrame.tsx';

export function UploadPrompt({ pick }: { pick: (folder: boolean) => void }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const choose = (folder: boolean) => {
    // The picker opens from this click (browsers need the user's gesture), then the prompt goes.
    pick(folder);
    close();
  };
  return (
    <PromptFrame title={t('prompts.upload')} onSubmit={() => choose(false)} buttons={<CancelButton />}>
      <p>{t('prompts.uploadMessage')}</p>
      <div className="upload-choices">
        <button type="button" className="button button-flat upload-choice" data-autofocus="" onClick={() => choose(false)}>
          <Icon name="file" size={28} />
          {t('buttons.file')}
        </button>
        <button type="button" className="button button-flat upload-choice" onClick={() => choose(true)}>
          <Icon name="folder" size={28} />
          {t('buttons.folder')}
        </button>
      </div>
    </PromptFrame>
  );
}
