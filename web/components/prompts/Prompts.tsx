/** Renders the prompts stack over an overlay; Escape or a click on the overlay closes the top prompt, Enter submits it. */
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef } from 'react';
import { closePromptAtom, promptsAtom, type PromptSpec } from '../../state/prompts.ts';
import { CopyMovePrompt } from './CopyMove.tsx';
import { DeletePrompt } from './Delete.tsx';
import { DownloadPrompt } from './Download.tsx';
import { ErrorPrompt } from './Message.tsx';
import { HelpPrompt } from './Help.tsx';
import { InfoPrompt } from './Info.tsx';
import { NewDirPrompt, NewFilePrompt } from './NewItem.tsx';
import { RenamePrompt } from './Rename.tsx';
import { ReplacePrompt, ReplaceRenamePrompt } from './Replace.tsx';
import { ConfirmPrompt } from './Confirm.tsx';
import { CurrentPasswordPrompt } from './CurrentPassword.tsx';
import { SharePrompt } from './Share.tsx';
import { UploadPrompt } from './Upload.tsx';
import { trapTab, useReturnFocus } from '../ui/modalFocus.ts';
import { Overlay } from '../ui/Overlay.tsx';

/** The component of one prompt, with the props its variant carries. */
function PromptView({ prompt: p }: { prompt: PromptSpec }) {
  switch (p.name) {
    case 'help':
      return <HelpPrompt />;
    case 'info':
      return <InfoPrompt {...p.props} />;
    case 'delete':
      return <DeletePrompt {...p.props} />;
    case 'rename':
      return <RenamePrompt {...p.props} />;
    case 'newFile':
      return <NewFilePrompt {...p.props} />;
    case 'newDir':
      return <NewDirPrompt {...p.props} />;
    case 'copy':
    case 'move':
      return <CopyMovePrompt kind={p.name} {...p.props} />;
    case 'download':
      return <DownloadPrompt {...p.props} />;
    case 'replace':
      return <ReplacePrompt {...p.props} />;
    case 'replaceRename':
      return <ReplaceRenamePrompt {...p.props} />;
    case 'error':
      return <ErrorPrompt {...p.props} />;
    case 'share':
      return <SharePrompt {...p.props} />;
    case 'upload':
      return <UploadPrompt {...p.props} />;
    case 'currentPassword':
      return <CurrentPasswordPrompt {...p.props} />;
    case 'confirm':
      return <ConfirmPrompt {...p.props} />;
  }
}

export function Prompts() {
  const prompts = useAtomValue(promptsAtom);
  const close = useSetAtom(closePromptAtom);
  const layer = useRef<HTMLDivElement>(null);
  const open = prompts.length > 0;
  useReturnFocus(open);

  useEffect(() => {
    if (!open) return;
    const top = () => layer.current?.querySelector<HTMLElement>('.prompt-slot:last-child .prompt');
    const onKey = (e: KeyboardEvent) => {
      const dialog = top();
      const form = dialog?.querySelector('form');
      if (!dialog || !form) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close();
      } else if (e.key === 'Enter' && !dialog.contains(document.activeElement)) {
        e.preventDefault();
        form.requestSubmit();
      } else trapTab(dialog, e);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [open, close]);

  if (!open) return null;
  return (
    <div className="prompts" ref={layer}>
      <Overlay onDismiss={() => close()} />
      {prompts.map((p, i) => {
        return (
          <div key={p.id} className="prompt-slot" hidden={i !== prompts.length - 1}>
            <PromptView prompt={p} />
          </div>
        );
      })}
    </div>
  );
}
