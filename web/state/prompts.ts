/** The prompts stack: show pushes, close pops (spec §4). */
import { atom } from 'jotai';

export type PromptName =
  | 'help'
  | 'info'
  | 'delete'
  | 'rename'
  | 'newFile'
  | 'newDir'
  | 'copy'
  | 'move'
  | 'download'
  | 'replace'
  | 'replaceRename'
  | 'error'
  | 'success';

export interface Prompt {
  name: PromptName;
  /** Prompt-specific data (callbacks, messages). */
  props?: Record<string, unknown>;
  /** A stable key so React keeps each prompt's state while others stack on top. */
  id: number;
}

let nextId = 1;

export const promptsAtom = atom<Prompt[]>([]);
export const currentPromptAtom = atom((get) => get(promptsAtom).at(-1) ?? null);

export const showPromptAtom = atom(null, (get, set, p: { name: PromptName; props?: Record<string, unknown> }) => {
  set(promptsAtom, [...get(promptsAtom), { ...p, id: nextId++ }]);
});

export const closePromptAtom = atom(null, (get, set) => {
  set(promptsAtom, get(promptsAtom).slice(0, -1));
});

/** Closes every prompt unless the top one is a success prompt (route changes, spec §2). */
export const closePromptsOnNavigateAtom = atom(null, (get, set) => {
  if (get(currentPromptAtom)?.name !== 'success') set(promptsAtom, []);
});
