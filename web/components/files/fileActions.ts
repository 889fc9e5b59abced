/**
 * The file actions as data (STYLE.md 13): each knows when it is available (spec §6 "Header
 * actions") and what it does. The header, the narrow-screen selection bar and the keyboard all
 * read this one table.
 */
import type { TokenUser } from '../../../src/api/user.ts';
import type { FileOps } from '../../actions/files.ts';
import type { App } from '../../app/context.tsx';
import { settings } from '../../config.ts';
import { can } from '../../lib/perm.ts';
import { showShellAtom, toggleShellAtom } from '../../state/shell.ts';
import { pickerAtom } from '../upload/UploadInputs.tsx';
import type { Listing } from '../../state/files.ts';
import { showPromptAtom, type PromptSpec } from '../../state/prompts.ts';
import { multipleAtom } from '../../state/selection.ts';
import type { IconName } from '../ui/Icon.tsx';
import { cycleViewMode } from './viewMode.ts';

export interface ActionContext {
  app: App;
  ops: FileOps;
  user: TokenUser;
  listing: Listing;
  selectedCount: number;
  multiple: boolean;
}

export interface FileAction {
  id: 'share' | 'rename' | 'copy' | 'move' | 'delete' | 'shell' | 'download' | 'upload' | 'switchView' | 'info' | 'selectMultiple';
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
const show = (ctx: ActionContext, prompt: PromptSpec) => ctx.app.store.set(showPromptAtom, prompt);
const selected = (ctx: ActionContext) => ctx.ops.selectedItems();

export const FILE_ACTIONS: FileAction[] = [
  {
    id: 'share',
    icon: 'share',
    label: 'buttons.share',
    selection: true,
    // The share calls also need the download permission (docs/decisions.md "Shares").
    visible: (ctx) => count(ctx) === 1 && can(ctx.user, 'share') && can(ctx.user, 'download'),
    run: (ctx) => show(ctx, { name: 'share', props: { item: selected(ctx)[0] } }),
  },
  {
    id: 'rename',
    icon: 'rename',
    label: 'buttons.rename',
    selection: true,
    visible: (ctx) => count(ctx) === 1 && can(ctx.user, 'rename'),
    run: (ctx) => show(ctx, { name: 'rename', props: { item: selected(ctx)[0] } }),
  },
  {
    id: 'copy',
    icon: 'copy',
    label: 'buttons.copyFile',
    selection: true,
    visible: (ctx) => isDir(ctx) && ctx.selectedCount > 0 && can(ctx.user, 'create'),
    run: (ctx) => show(ctx, { name: 'copy', props: { items: selected(ctx) } }),
  },
  {
    id: 'move',
    icon: 'move',
    label: 'buttons.moveFile',
    selection: true,
    visible: (ctx) => isDir(ctx) && ctx.selectedCount > 0 && can(ctx.user, 'rename'),
    run: (ctx) => show(ctx, { name: 'move', props: { items: selected(ctx) } }),
  },
  {
    id: 'delete',
    icon: 'trash',
    label: 'buttons.delete',
    selection: true,
    visible: (ctx) => count(ctx) > 0 && can(ctx.user, 'delete'),
    run: (ctx) => show(ctx, { name: 'delete', props: { items: selected(ctx) } }),
  },
  {
    id: 'shell',
    icon: 'terminal',
    label: 'buttons.shell',
    selection: false,
    visible: (ctx) => isDir(ctx) && settings.EnableExec && can(ctx.user, 'execute'),
    run: (ctx) => ctx.app.store.set(toggleShellAtom),
    pressed: (ctx) => ctx.app.store.get(showShellAtom),
  },
  {
    id: 'download',
    icon: 'download',
    label: 'buttons.download',
    selection: true,
    visible: (ctx) => can(ctx.user, 'download'),
    run: (ctx) => ctx.ops.download(),
  },
  {
    id: 'upload',
    icon: 'upload',
    label: 'buttons.upload',
    selection: false,
    visible: (ctx) => isDir(ctx) && can(ctx.user, 'create'),
    run: (ctx) => show(ctx, { name: 'upload', props: { pick: (folder) => ctx.app.store.get(pickerAtom)?.open(folder) } }),
  },
  {
    id: 'switchView',
    icon: 'viewList',
    label: 'buttons.switchView',
    selection: false,
    visible: (ctx) => isDir(ctx),
    run: (ctx) => void cycleViewMode(ctx.app),
  },
  {
    id: 'info',
    icon: 'info',
    label: 'buttons.info',
    selection: true,
    visible: () => true,
    run: (ctx) =>
      show(ctx, { name: 'info', props: { items: isDir(ctx) ? selected(ctx) : [ctx.listing.resource], dir: isDir(ctx) ? ctx.listing.resource : undefined } }),
  },
  {
    id: 'selectMultiple',
    icon: 'selectMultiple',
    label: 'buttons.selectMultiple',
    selection: false,
    visible: (ctx) => isDir(ctx),
    run: (ctx) => ctx.app.store.set(multipleAtom, !ctx.multiple),
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
