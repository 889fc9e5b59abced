import { useSetAtom } from 'jotai';
import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import { useFileOps } from '../../actions/files.ts';
import { samePath } from '../../lib/paths.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';
import { FolderChooser } from './FolderChooser.tsx';

/** Copy or move the selection into a folder picked with the chooser (Move is disabled for the current folder). */
export function CopyMovePrompt({ kind, items }: { kind: 'copy' | 'move'; items: ResourceItem[] }) {
  const { currentDir, transferTo } = useFileOps();
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const [here] = useState(currentDir);
  const [dest, setDest] = useState(here);
  // Read at submit time: an Enter may follow a click before React re-renders.
  const destRef = useRef(here);
  const onChange = useCallback((d: string) => {
    destRef.current = d;
    setDest(d);
  }, []);
  const disabled = kind === 'move' && samePath(dest, here);
  const submit = () => {
    if (kind === 'move' && samePath(destRef.current, here)) return;
    close();
    void transferTo(kind, items, destRef.current).catch(() => undefined);
  };
  return (
    <PromptFrame
      title={t(kind === 'copy' ? 'prompts.copy' : 'prompts.move')}
      onSubmit={submit}
      className="prompt-wide"
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={t(kind === 'copy' ? 'buttons.copy' : 'buttons.move')} disabled={disabled} autoFocus />
        </>
      }
    >
      <p>{t(kind === 'copy' ? 'prompts.copyMessage' : 'prompts.moveMessage')}</p>
      <FolderChooser start={here} onChange={onChange} />
    </PromptFrame>
  );
}
