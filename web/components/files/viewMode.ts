/** View mode and sorting preferences: applied at once, saved to the user. */
import { VIEW_MODES, type ViewMode } from '../../../src/api/user.ts';
import { update } from '../../api/users.ts';
import { invalidateFiles } from '../../api/queries.ts';
import type { App } from '../../app/context.tsx';
import { notifier } from '../../actions/notify.ts';
import { nextSorting } from '../../lib/sort.ts';
import { userAtom } from '../../state/auth.ts';

/** list → mosaic → mosaic gallery → list. */
export function nextViewMode(mode: ViewMode): ViewMode {
  return VIEW_MODES[(VIEW_MODES.indexOf(mode) + 1) % VIEW_MODES.length];
}

async function save(app: App, which: string, data: Record<string, unknown>): Promise<void> {
  const user = app.store.get(userAtom);
  if (!user) return;
  try {
    await update(user.id, [which], data);
    // The token carries the user's preferences: refresh it so a reload keeps them.
    await app.session.renewToken();
  } catch (err) {
    notifier(app.store).showError(err);
  }
}

export async function cycleViewMode(app: App): Promise<void> {
  const { store } = app;
  const user = store.get(userAtom);
  if (!user) return;
  const viewMode = nextViewMode(user.viewMode);
  store.set(userAtom, { ...user, viewMode });
  await save(app, 'viewMode', { viewMode });
}

/** A click on a column header: toggles or changes the sorting, saves it and asks the server for the listings again (it sorts them). */
export async function sortBy(app: App, by: string): Promise<void> {
  const { store } = app;
  const user = store.get(userAtom);
  if (!user) return;
  const sorting = nextSorting(user.sorting ?? { by: 'name', asc: true }, by);
  store.set(userAtom, { ...user, sorting });
  await save(app, 'sorting', { sorting });
  await invalidateFiles(app.queryClient);
}
