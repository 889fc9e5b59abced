/** The files screen (/files/{path}): a folder listing or a single file, its header actions and keyboard shortcuts. */
import { useAtom, useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useMemo, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { get, type Resource } from '../api/resources.ts';
import { statusOf } from '../api/client.ts';
import { copyToClipboard, paste, takeSelectAfterReload } from '../actions/files.ts';
import { currentAppPath } from '../lib/navigate.ts';
import { baseName, pathFromFilesUrl, samePath } from '../lib/paths.ts';
import { remapSelection } from '../lib/selection.ts';
import { sortItems, type Sorting } from '../lib/sort.ts';
import { userAtom } from '../state/auth.ts';
import { listingAtom, loadErrorAtom, reloadAtom, type Listing as ListingData } from '../state/files.ts';
import { loadingAtom } from '../state/layout.ts';
import { promptsAtom, showPromptAtom } from '../state/prompts.ts';
import { clearSelectionAtom, multipleAtom, selectedAtom } from '../state/selection.ts';
import { store } from '../state/store.ts';
import { Header, type HeaderAction } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { Breadcrumbs } from '../components/files/Breadcrumbs.tsx';
import { FileView } from '../components/files/FileView.tsx';
import { FILE_ACTIONS, runIfVisible, type ActionContext } from '../components/files/fileActions.ts';
import { Listing } from '../components/files/Listing.tsx';
import { SelectionBar } from '../components/files/SelectionBar.tsx';
import { nextViewMode } from '../components/files/viewMode.ts';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import type { IconName } from '../components/ui/Icon.tsx';
import { useNarrow } from '../components/ui/useNarrow.ts';
import { useTitle } from '../components/ui/useTitle.ts';

const VIEW_ICONS: Record<string, IconName> = { list: 'viewList', mosaic: 'viewMosaic', 'mosaic gallery': 'viewGallery' };

/** Sorts a loaded folder, folders first. */
export function toListing(resource: Resource, sorting: Sorting): ListingData {
  const items = resource.isDir ? sortItems(resource.items ?? [], sorting) : [];
  let dirCount = 0;
  while (dirCount < items.length && items[dirCount].isDir) dirCount++;
  return { resource, items, dirCount };
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/** Loads the resource at the path on every navigation and reload request. */
function useResource(path: string): void {
  const reloadCount = useAtomValue(reloadAtom);
  const setListing = useSetAtom(listingAtom);
  const setError = useSetAtom(loadErrorAtom);
  const setLoading = useSetAtom(loadingAtom);
  const setSelected = useSetAtom(selectedAtom);

  useEffect(() => {
    const ac = new AbortController();
    setLoading((n) => n + 1);
    get(path, ac.signal)
      .then((res) => {
        const sorting = store.get(userAtom)?.sorting ?? { by: 'name', asc: true };
        const next = toListing(res, sorting);
        const prev = store.get(listingAtom);
        const pick = takeSelectAfterReload();
        if (pick) {
          const i = next.items.findIndex((it) => it.path === pick);
          setSelected(i >= 0 ? [i] : []);
        } else if (prev && samePath(prev.resource.path, next.resource.path)) {
          setSelected(remapSelection(store.get(selectedAtom), prev.items, next.items));
        }
        setListing(next);
        setError(null);
        // Multiple-selection mode ends with every (re)load (spec §4).
        store.set(multipleAtom, false);
      })
      .catch((err) => {
        if (ac.signal.aborted) return;
        setListing(null);
        setError(statusOf(err));
      })
      .finally(() => setLoading((n) => n - 1));
    return () => ac.abort();
  }, [path, reloadCount, setListing, setError, setLoading, setSelected]);

  // Leaving the screen clears the current request.
  useEffect(
    () => () => {
      setListing(null);
      setError(null);
    },
    [setListing, setError],
  );
}

export default function FilesPage() {
  const { t } = useTranslation();
  useLocation();
  const path = pathFromFilesUrl(currentAppPath().split('?')[0]) ?? '/';
  useResource(path);
  const user = useAtomValue(userAtom)!;
  const listing = useAtomValue(listingAtom);
  const error = useAtomValue(loadErrorAtom);
  const [selected, setSelected] = useAtom(selectedAtom);
  const multiple = useAtomValue(multipleAtom);
  const clearSelection = useSetAtom(clearSelectionAtom);
  const showPrompt = useSetAtom(showPromptAtom);
  const narrow = useNarrow();
  const scrollRef = useRef<HTMLDivElement>(null);
  useTitle(path === '/' ? t('sidebar.myFiles') : baseName(path));

  // While the next path loads, the previous listing stays on screen but no action applies to it.
  const current = listing !== null && samePath(listing.resource.path, path);
  const ctx: ActionContext | null = useMemo(
    () => (listing && current ? { user, listing, selectedCount: selected.length, multiple } : null),
    [user, listing, current, selected.length, multiple],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (store.get(promptsAtom).length > 0 || !ctx) return;
      const typing = isTyping(e.target);
      const mod = e.ctrlKey || e.metaKey;
      if (e.key === 'F1') {
        e.preventDefault();
        showPrompt({ name: 'help' });
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
        setSelected(ctx.listing.items.map((_, i) => i));
      } else if (mod && (e.key.toLowerCase() === 'c' || e.key.toLowerCase() === 'x')) {
        if (window.getSelection()?.toString()) return;
        if (copyToClipboard(e.key.toLowerCase() === 'x')) e.preventDefault();
      } else if (mod && e.key.toLowerCase() === 'v') {
        e.preventDefault();
        void paste();
      } else if (mod && e.key.toLowerCase() === 's') {
        e.preventDefault();
        runIfVisible('download', ctx);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ctx, showPrompt, clearSelection, setSelected]);

  const barActive = narrow && ctx !== null && ctx.listing.resource.isDir && ctx.selectedCount > 0;
  const headerActions: HeaderAction[] = ctx
    ? FILE_ACTIONS.filter((a) => a.visible(ctx) && !(barActive && a.selection)).map((a) => ({
        id: a.id,
        icon: a.id === 'switchView' ? VIEW_ICONS[nextViewMode(user.viewMode)] : a.icon,
        label: t(a.label),
        pressed: a.pressed?.(ctx),
        run: () => a.run(ctx),
      }))
    : [];

  return (
    <Layout header={<Header actions={headerActions} />}>
      <div
        className={`files${barActive ? ' files-with-bar' : ''}`}
        ref={scrollRef}
        // Files dropped from the desktop must not make the browser leave the app (uploads come with their own issue).
        onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()}
        onDrop={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()}
      >
        <Breadcrumbs path={listing && !listing.resource.isDir ? listing.resource.path.replace(/\/[^/]*$/, '') || '/' : path} />
        {error !== null ? (
          <ErrorScreen code={error} />
        ) : listing === null ? null : listing.resource.isDir ? (
          <Listing listing={listing} scrollRef={scrollRef} />
        ) : (
          <FileView file={listing.resource} />
        )}
      </div>
      {barActive && ctx && <SelectionBar ctx={ctx} />}
    </Layout>
  );
}
