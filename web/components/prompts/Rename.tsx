import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import { renameItem } from '../../actions/files.ts';
import { showError } from '../../actions/notify.ts';
import { validName } from '../../lib/paths.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { useAction } from '../ui/useAction.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

/** Renames one item; the name is trimmed and the base name is pre-selected. */
export function RenamePrompt({ item }: { item: ResourceItem }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const [name, setName] = useState(item.name);
  const input = useRef<HTMLInputElement>(null);
  const valid = validName(name);
  const action = useAction(async () => {
    if (!valid) return;
    try {
      await renameItem(item, valid);
    } catch (err) {
      showError(err);
      throw err;
    }
    close();
  });

  useEffect(() => {
    const el = input.current;
    if (!el) return;
    const dot = item.isDir ? -1 : item.name.lastIndexOf('.');
    el.setSelectionRange(0, dot > 0 ? dot : item.name.length);
  }, [item]);

  return (
    <PromptFrame
      title={t('prompts.rename')}
      onSubmit={() => void action.run()}
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={t('buttons.rename')} state={action.state} disabled={!valid} />
        </>
      }
    >
      <label className="field">
        <span>{t('prompts.renameMessage', { name: item.name })}</span>
        <input ref={input} className="input" value={name} autoFocus spellCheck={false} onChange={(e) => setName(e.target.value)} />
      </label>
    </PromptFrame>
  );
}
