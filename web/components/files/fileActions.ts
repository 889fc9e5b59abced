/**
 * The file actions as data (STYLE.md 13): each knows when it is available (spec §6 "Header
 * actions") and what it does. The header, the narrow-screen selection bar and the keyboard all
 * read this one table.
 */
import type { TokenUser } from '../../../src/api/user.ts';
import { copyToClipboard, download, selectedItems } from '../../actions/files.ts';
import { can } from '../../lib/perm.ts';
import type { Listing } from '../../state/files.ts';
import { showPromptAtom, type PromptName } from '../../state/prompts.ts';
import { multipleAtom } from '../../state/selection.ts';
import { store } from '../../state/store.ts';
import type { IconName } from '../ui/Icon.tsx';
import { cycleViewMode } from './viewMode.ts';

export interface ActionContext {
  user: TokenUser;
  listing: Listing;
  selectedCount: number;
  multiple: boolean;
}

export interface FileAction {
  id: 'rename' | 'copy' | 'move' | 'delete' | 'download' | 'switchView' | 'info' | 'selectMultiple';
  icon: IconName;
  /** Translation key of the accessible name. */
  label: string;
  /** Acts on the selection (shown in the narrow-screen selection bar). */
  selection: boolean;
  visible(ctx: ActionContext): boolean;
  run(ctx: ActionContext): void;
  pressed?(ctx: ActionContext): boolean;
}

const isDir = (ctx: ActionContext) => ctx.listing.resource.isDir;
/** Items acted on: the selection in a listing, the file itself on a single view. */
const count = (ctx: ActionContext) => (isDir(ctx) ? ctx.selectedCount : 1);
const show = (name: PromptName, props?: Record<string, unknown>) =>
  store.set(showPromptAtom, { name, props });

export const FILE_ACTIONS: FileAction[] = [
  {
    id: 'rename',
    icon: 'rename',
    label: 'buttons.rename',
    selection: true,
    visible: (ctx) => count(ctx) === 1 && can(ctx.user, 'rename'),
    run: () => show('rename', { item: selectedItems()[0] }),
  },
  {
    id: 'copy',
    icon: 'copy',
    label: 'buttons.copyFile',
    selection: true,
    visible: (ctx) => isDir(ctx) && ctx.selectedCount > 0 && can(ctx.user, 'create'),
    run: () => show('copy', { items: selectedItems() }),
  },
  {
    id: 'move',
    icon: 'move',
    label: 'buttons.moveFile',
    selection: true,
    visible: (ctx) => isDir(ctx) && ctx.selectedCount > 0 && can(ctx.user, 'rename'),
    run: () => show('move', { items: selectedItems() }),
  },
  {
    id: 'delete',
    icon: 'trash',
    label: 'buttons.delete',
    selection: true,
    visible: (ctx) => count(ctx) > 0 && can(ctx.user, 'delete'),
    run: () => show('delete', { items: selectedItems() }),
  },
  {
    id: 'download',
    icon: 'download',
    label: 'buttons.download',
    selection: true,
    visible: (ctx) => can(ctx.user, 'download'),
    run: () => download(),
  },
  {
    id: 'switchView',
    icon: 'viewList',
    label: 'buttons.switchView',
    selection: false,
    visible: (ctx) => isDir(ctx),
    run: () => void cycleViewMode(),
  },
  {
    id: 'info',
    icon: 'info',
    label: 'buttons.info',
    selection: true,
    visible: () => true,
    run: (ctx) => show('info', { items: isDir(ctx) ? selectedItems() : [ctx.listing.resource], dir: isDir(ctx) ? ctx.listing.resource : undefined }),
  },
  {
    id: 'selectMultiple',
    icon: 'selectMultiple',
    label: 'buttons.selectMultiple',
    selection: false,
    visible: (ctx) => isDir(ctx),
    run: (ctx) => store.set(multipleAtom, !ctx.multiple),
    pressed: (ctx) => ctx.multiple,
  },
];

export const actionById = (id: FileAction['id']) => FILE_ACTIONS.find((a) => a.id === id)!;

/** Runs an action by id if it is available in this context; returns whether it ran. */
export function runIfVisible(id: FileAction['id'], ctx: ActionContext): boolean {
  const a = actionById(id);
  if (!a.visible(ctx)) return false;
  a.run(ctx);
  return true;
}

export { copyToClipboard };
