import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import { useFileOps } from '../../actions/files.ts';
import { useNotify } from '../../actions/notify.ts';
import { displayName, editableName, hasEscapes, parseEditedName } from '../../lib/names.ts';
import { validName } from '../../lib/paths.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { useAction } from '../ui/useAction.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

/**
 * Renames one item; the name is trimmed and the base name is pre-selected. A name with bytes that
 * are not UTF-8 is edited in its display form (`\xHH` for such a byte, lib/names.ts).
 */
export function RenamePrompt({ item }: { item: ResourceItem }) {
  const { renameItem } = useFileOps();
  const { showError } = useNotify();
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const initial = editableName(item.name);
  const [text, setText] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  const valid = validName(parseEditedName(text, item.name));
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
    const dot = item.isDir ? -1 : initial.lastIndexOf('.');
    el.setSelectionRange(0, dot > 0 ? dot : initial.length);
  }, [item, initial]);

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
        <span>{t('prompts.renameMessage', { name: displayName(item.name) })}</span>
        <input ref={input} className="input" value={text} data-autofocus="" spellCheck={false} onChange={(e) => setText(e.target.value)} />
      </label>
      {hasEscapes(item.name) && <p className="field-help">{t('prompts.renameBytes')}</p>}
    </PromptFrame>
  );
}
