/**
 * A text file: the spec keeps the editor out, so the text is shown read-only with a download
 * button; users who may modify it (type `text`) get a plain editor that saves with PUT (Ctrl+S).
 */
import { useAtomValue } from 'jotai';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { rawUrl, save, type Resource } from '../../api/resources.ts';
import { useFileOps, startDownload } from '../../actions/files.ts';
import { useNotify } from '../../actions/notify.ts';
import { can } from '../../lib/perm.ts';
import { userAtom } from '../../state/auth.ts';
import { Icon } from '../ui/Icon.tsx';
import { useAction } from '../ui/useAction.ts';
import { SubmitButton } from '../prompts/PromptFrame.tsx';
import { displayName } from '../../lib/names.ts';
import { Name } from '../ui/Name.tsx';

export function TextView({ file }: { file: Resource }) {
  const { reload } = useFileOps();
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  const editable = file.type === 'text' && can(user, 'modify');
  const [text, setText] = useState(file.content ?? '');
  const [saved, setSaved] = useState(file.content ?? '');
  // Another file is another TextView (keyed by path, Files.tsx); the same file reloaded starts from its new content.
  useEffect(() => {
    setText(file.content ?? '');
    setSaved(file.content ?? '');
  }, [file.content]);
  const dirty = text !== saved;
  const action = useAction(async () => {
    try {
      await save(file.path, text);
    } catch (err) {
      showError(err);
      throw err;
    }
    setSaved(text);
    showSuccess(t('files.saved'));
    reload();
  });
  return (
    <form
      className="text-view"
      aria-label={displayName(file.name)}
      onSubmit={(e) => {
        e.preventDefault();
        if (editable) void action.run();
      }}
    >
      <div className="text-view-bar">
        <h1 className="text-view-name">
          <Icon name="text" size={20} />
          <span>
            <Name name={file.name} />
          </span>
          {dirty && <span className="badge">{t('files.unsaved')}</span>}
        </h1>
        {can(user, 'download') && (
          <button type="button" className="button button-flat" onClick={() => startDownload(rawUrl(file.path))}>
            <Icon name="download" size={18} /> {t('buttons.download')}
          </button>
        )}
        {editable && <SubmitButton label={t('buttons.save')} state={action.state} disabled={!dirty} />}
      </div>
      {editable ? (
        <textarea
          className="text-view-content text-view-editor"
          aria-label={t('files.content')}
          spellCheck={false}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
              e.preventDefault();
              void action.run();
            }
          }}
        />
      ) : (
        // A scrolling region the keyboard must reach (tabIndex), named for it.
        // biome-ignore lint/a11y/noNoninteractiveTabindex: only a focused region scrolls with the arrow keys (axe: scrollable-region-focusable)
        // biome-ignore lint/a11y/useSemanticElements: a <pre> keeps the text's spacing; the role names it as a region
        <pre className="text-view-content" role="region" tabIndex={0} aria-label={t('files.content')}>
          {text}
        </pre>
      )}
    </form>
  );
}
