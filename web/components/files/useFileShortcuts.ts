/** The files screen's keyboard (spec §4 "Keyboard"): F1 help, Ctrl+F search, F2 rename, Delete, Escape, Ctrl+A/C/X/V/S. */
import { useSetAtom, useStore } from 'jotai';
import { useEffect } from 'react';
import { promptsAtom, showPromptAtom } from '../../state/prompts.ts';
import { searchOpenAtom } from '../../state/search.ts';
import { clearSelectionAtom, selectedAtom } from '../../state/selection.ts';
import { runIfVisible, type ActionContext } from './fileActions.ts';

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/** Listens while the screen shows `ctx` (null: while the next path loads, no action applies). */
export function useFileShortcuts(ctx: ActionContext | null): void {
  const store = useStore();
  const showPrompt = useSetAtom(showPromptAtom);
  const clearSelection = useSetAtom(clearSelectionAtom);
  const setSelected = useSetAtom(selectedAtom);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (store.get(promptsAtom).length > 0 || store.get(searchOpenAtom) || !ctx) return;
      const typing = isTyping(e.target);
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === 'F1') {
        e.preventDefault();
        showPrompt({ name: 'help' });
      } else if (mod && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        store.set(searchOpenAtom, true);
      } else if (typing) {
        return;
      } else if (e.key === 'F2') {
        if (runIfVisible('rename', ctx)) e.preventDefault();
      } else if (e.key === 'Delete') {
        if (runIfVisible('delete', ctx)) e.preventDefault();
      } else if (e.key === 'Escape') {
        clearSelection();
      } else if (mod && e.key.toLowerCase() === 'a' && ctx.listing.resource.isDir) {
        e.preventDefault();
        setSelected(ctx.listing.items.map((it) => it.path));
      } else if (mod && (e.key.toLowerCase() === 'c' || e.key.toLowerCase() === 'x')) {
        if (window.getSelection()?.toString()) return;
        if (ctx.ops.copyToClipboard(e.key.toLowerCase() === 'x')) e.preventDefault();
      } else if (mod && e.key.toLowerCase() === 'v') {
        e.preventDefault();
        void ctx.ops.paste();
      } else if (mod && e.key.toLowerCase() === 's') {
        e.preventDefault();
        runIfVisible('download', ctx);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ctx, store, showPrompt, clearSelection, setSelected]);
}
