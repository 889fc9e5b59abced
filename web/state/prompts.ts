/** The prompts stack: show pushes, close pops (spec §4). One variant per prompt kind, with its props. */
import { atom } from 'jotai';
import type { Resource, ResourceItem } from '../api/resources.ts';

/** A conflict's resolution: keep both (a free name) or replace. */
/** One item of a batch that failed, and why (a notice without its id, translated when shown). */
export interface ItemFailure {
  name: string;
  reason: { message: string; key?: string };
}

export type ConflictChoice = 'rename' | 'overwrite';

export interface ConfirmProps {
  title: string;
  message: string;
  /** Label of the confirming button. */
  confirm: string;
  danger?: boolean;
  /** Runs after the prompt closed; a rejection is reported by the caller. */
  onConfirm: () => Promise<void> | void;
}

/** Every prompt the UI can show. */
export type PromptSpec =
  | { name: 'help' }
  | { name: 'info'; props: { items: ResourceItem[]; dir?: Resource } }
  | { name: 'delete'; props: { items: ResourceItem[] } }
  | { name: 'rename'; props: { item: ResourceItem } }
  | { name: 'newFile'; props?: { dir?: string } }
  | { name: 'newDir'; props?: { dir?: string; onCreated?: (path: string) => void } }
  | { name: 'copy'; props: { items: ResourceItem[] } }
  | { name: 'move'; props: { items: ResourceItem[] } }
  | { name: 'download'; props: { paths: string[] } }
  /** Upload conflicts: Cancel, Continue (rename), Replace. */
  | { name: 'replace'; props: { onChoose: (choice: ConflictChoice) => Promise<void> } }
  /** Copy, move, paste and drop conflicts: Cancel, Rename, Replace. */
  | { name: 'replaceRename'; props: { onChoose: (choice: ConflictChoice) => Promise<void>; message?: string; renameLabel?: string } }
  | { name: 'error'; props?: { message?: string; failures?: ItemFailure[] } }
  | { name: 'share'; props: { item: ResourceItem } }
  | { name: 'upload'; props: { pick: (folder: boolean) => void } }
  | { name: 'currentPassword'; props: { onDone: (password: string | null) => void } }
  | { name: 'confirm'; props: ConfirmProps };

export type PromptName = PromptSpec['name'];

/** A shown prompt; `id` is a stable key so React keeps each prompt's state while others stack on top. */
export type Prompt = PromptSpec & { id: number };

export const promptsAtom = atom<Prompt[]>([]);
export const currentPromptAtom = atom((get) => get(promptsAtom).at(-1) ?? null);

const nextIdAtom = atom(1);

export const showPromptAtom = atom(null, (get, set, p: PromptSpec) => {
  const id = get(nextIdAtom);
  set(nextIdAtom, id + 1);
  set(promptsAtom, [...get(promptsAtom), { ...p, id }]);
});

export const closePromptAtom = atom(null, (get, set) => {
  set(promptsAtom, get(promptsAtom).slice(0, -1));
});

/**
 * Closes every prompt on a route change (spec §2). The spec spares a success prompt; fm has none:
 * every success is a short notice (docs/decisions.md, "the error prompt").
 */
export const closePromptsOnNavigateAtom = atom(null, (_get, set) => {
  set(promptsAtom, []);
});
