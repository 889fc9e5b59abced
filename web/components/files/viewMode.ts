/** View mode and sorting preferences: applied at once, saved to the user. */
import type { ViewMode } from '../../../src/api/user.ts';
import { update } from '../../api/users.ts';
import { reload } from '../../actions/files.ts';
import { showError } from '../../actions/notify.ts';
import { renewToken } from '../../actions/session.ts';
import { nextSorting } from '../../lib/sort.ts';
import { userAtom } from '../../state/auth.ts';
import { store } from '../../state/store.ts';

export const VIEW_CYCLE: ViewMode[] = ['list', 'mosaic', 'mosaic gallery'];

/** list → mosaic → mosaic gallery → list. */
export function nextViewMode(mode: ViewMode): ViewMode {
  return VIEW_CYCLE[(VIEW_CYCLE.indexOf(mode) + 1) % VIEW_CYCLE.length];
}

async function save(which: string, data: Record<string, unknown>): Promise<void> {
  const user = store.get(userAtom);
  if (!user) return;
  try {
    await update(user.id, [which], data);
    // The token carries the user's preferences: refresh it so a reload keeps them.
    await renewToken();
  } catch (err) {
    showError(err);
  }
}

export async function cycleViewMode(): Promise<void> {
  const user = store.get(userAtom);
  if (!user) return;
  const viewMode = nextViewMode(user.viewMode);
  store.set(userAtom, { ...user, viewMode });
  await save('viewMode', { viewMode });
}

/** A click on a column header: toggles or changes the sorting, saves it and reloads. */
export async function sortBy(by: string): Promise<void> {
  const user = store.get(userAtom);
  if (!user) return;
  const sorting = nextSorting(user.sorting ?? { by: 'name', asc: true }, by);
  store.set(userAtom, { ...user, sorting });
  await save('sorting', { sorting });
  reload();
}
