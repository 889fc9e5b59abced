/** Renders the prompts stack over an overlay; Escape or a click on the overlay closes the top prompt, Enter submits it. */
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, type ComponentType } from 'react';
import type { ResourceItem } from '../../api/resources.ts';
import { closePromptAtom, promptsAtom, type PromptName } from '../../state/prompts.ts';
import { CopyMovePrompt } from './CopyMove.tsx';
import { DeletePrompt } from './Delete.tsx';
import { DownloadPrompt } from './Download.tsx';
import { ErrorPrompt, SuccessPrompt } from './Message.tsx';
import { HelpPrompt } from './Help.tsx';
import { InfoPrompt } from './Info.tsx';
import { NewDirPrompt, NewFilePrompt } from './NewItem.tsx';
import { RenamePrompt } from './Rename.tsx';
import { ReplacePrompt, ReplaceRenamePrompt } from './Replace.tsx';

// Each prompt reads its own props; the registry only maps names to components.
// any: each prompt declares its own props; the stack stores them untyped.
type AnyPrompt = ComponentType<any>;

const REGISTRY: Record<PromptName, AnyPrompt> = {
  help: HelpPrompt,
  info: InfoPrompt,
  delete: DeletePrompt,
  rename: RenamePrompt,
  newFile: NewFilePrompt,
  newDir: NewDirPrompt,
  copy: (p: { items: ResourceItem[] }) => <CopyMovePrompt kind="copy" {...p} />,
  move: (p: { items: ResourceItem[] }) => <CopyMovePrompt kind="move" {...p} />,
  download: DownloadPrompt,
  replace: ReplacePrompt,
  replaceRename: ReplaceRenamePrompt,
  error: ErrorPrompt,
  success: SuccessPrompt,
};

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])';

export function Prompts() {
  const prompts = useAtomValue(promptsAtom);
  const close = useSetAtom(closePromptAtom);
  const layer = useRef<HTMLDivElement>(null);
  const opener = useRef<Element | null>(null);
  const open = prompts.length > 0;

  useEffect(() => {
    if (!open) return;
    opener.current = document.activeElement;
    return () => {
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus();
    };
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const top = () => layer.current?.querySelector<HTMLFormElement>('.prompt-slot:last-child form.prompt');
    const onKey = (e: KeyboardEvent) => {
      const form = top();
      if (!form) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close();
      } else if (e.key === 'Enter' && !form.contains(document.activeElement)) {
        e.preventDefault();
        form.requestSubmit();
      } else if (e.key === 'Tab') {
        const items = [...form.querySelectorAll<HTMLElement>(FOCUSABLE)];
        if (items.length === 0) return;
        const first = items[0];
        const last = items[items.length - 1];
        if (!form.contains(document.activeElement)) {
          e.preventDefault();
          first.focus();
        } else if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first.focus();
        }
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [open, close]);

  if (!open) return null;
  return (
    <div className="prompts" ref={layer}>
      <div className="overlay" onClick={() => close()} />
      {prompts.map((p, i) => {
        const Component = REGISTRY[p.name];
        return (
          <div key={p.id} className="prompt-slot" hidden={i !== prompts.length - 1}>
            <Component {...(p.props ?? {})} />
          </div>
        );
      })}
    </div>
  );
}
