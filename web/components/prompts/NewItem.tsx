import { useSetAtom } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFileOps } from '../../actions/files.ts';
import { useNotify } from '../../actions/notify.ts';
import { validName } from '../../lib/paths.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { useAction } from '../ui/useAction.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

function NewItemPrompt({
  kind,
  dir,
  onCreated,
}: {
  kind: 'file' | 'dir';
  /** Where to create (default: the current folder). */
  dir?: string;
  /** Called with the new folder's path instead of opening it (the folder chooser). */
  onCreated?: (path: string) => void;
}) {
  const { currentDir, createDir, createFile } = useFileOps();
  const { showError } = useNotify();
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const [name, setName] = useState('');
  const valid = validName(name);
  const target = dir ?? currentDir();
  const action = useAction(async () => {
    if (!valid) return;
    try {
      if (kind === 'file') {
        await createFile(target, valid);
        close();
      } else if (onCreated) {
        const path = await createDir(target, valid, false);
        close();
        onCreated(path);
      } else {
        await createDir(target, valid);
        close();
      }
    } catch (err) {
      showError(err);
      throw err;
    }
  });
  return (
    <PromptFrame
      title={t(kind === 'file' ? 'prompts.newFile' : 'prompts.newDir')}
      onSubmit={() => void action.run()}
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={t('buttons.create')} state={action.state} disabled={!valid} />
        </>
      }
    >
      <label className="field">
        <span>{t(kind === 'file' ? 'prompts.newFileMessage' : 'prompts.newDirMessage')}</span>
        <input className="input" value={name} data-autofocus="" spellCheck={false} onChange={(e) => setName(e.target.value)} />
      </label>
    </PromptFrame>
  );
}

export const NewFilePrompt = (p: { dir?: string }) => <NewItemPrompt kind="file" {...p} />;
export const NewDirPrompt = (p: { dir?: string; onCreated?: (path: string) => void }) => <NewItemPrompt kind="dir" {...p} />;
