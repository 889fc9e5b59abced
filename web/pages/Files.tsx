/** The files screen (/files/{path}): a folder listing or a single file, its header actions, keyboard shortcuts and drops. */
import { useAtomValue, useSetAtom } from 'jotai';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import type { ViewMode } from '../../src/api/user.ts';
import { useFileOps } from '../actions/files.ts';
import { useApp } from '../app/context.tsx';
import { can } from '../lib/perm.ts';
import { currentAppPath } from '../lib/navigate.ts';
import { baseName, pathFromFilesUrl, samePath } from '../lib/paths.ts';
import { userAtom } from '../state/auth.ts';
import { multipleAtom, selectedAtom } from '../state/selection.ts';
import { showShellAtom } from '../state/shell.ts';
import { Header, type HeaderAction } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { Breadcrumbs } from '../components/files/Breadcrumbs.tsx';
import { TextView } from '../components/files/TextView.tsx';
import { SearchButton } from '../components/search/SearchButton.tsx';
import { fromDrop } from '../components/upload/pickFiles.ts';
import { UploadInputs } from '../components/upload/UploadInputs.tsx';
import { FILE_ACTIONS, type ActionContext } from '../components/files/fileActions.ts';
import { useFileShortcuts } from '../components/files/useFileShortcuts.ts';
import { useResource } from '../components/files/useResource.ts';
import { Listing } from '../components/files/Listing.tsx';
import { SelectionBar } from '../components/files/SelectionBar.tsx';
import { nextViewMode } from '../components/files/viewMode.ts';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import type { IconName } from '../components/ui/Icon.tsx';
import { useNarrow } from '../components/ui/useNarrow.ts';
import { useTitle } from '../components/ui/useTitle.ts';
import { displayName } from '../lib/names.ts';

const Preview = lazy(() => import('../components/preview/Preview.tsx'));
const Shell = lazy(() => import('../components/shell/Shell.tsx'));

const VIEW_ICONS: Record<ViewMode, IconName> = { list: 'viewList', mosaic: 'viewMosaic', 'mosaic gallery': 'viewGallery' };

export default function FilesPage() {
  const { t } = useTranslation();
  useLocation();
  const rawPath = currentAppPath().split('?')[0];
  const path = pathFromFilesUrl(rawPath) ?? '/';
  const { listing, error, retry } = useResource(path);
  const app = useApp();
  const ops = useFileOps();
  const user = useAtomValue(userAtom)!;
  const selected = useAtomValue(selectedAtom);
  const multiple = useAtomValue(multipleAtom);
  const narrow = useNarrow();
  const scrollRef = useRef<HTMLDivElement>(null);
  const title = path === '/' ? t('sidebar.myFiles') : displayName(baseName(path));
  useTitle(title);

  // While the next path loads, the previous listing stays on screen but no action applies to it.
  const current = listing !== null && samePath(listing.resource.path, path);
  const ctx: ActionContext | null = useMemo(
    () => (listing && current ? { app, ops, user, listing, selectedCount: selected.length, multiple } : null),
    [app, ops, user, listing, current, selected.length, multiple],
  );

  useFileShortcuts(ctx);

  const showShell = useAtomValue(showShellAtom);
  const setShowShell = useSetAtom(showShellAtom);
  // Leaving the files screen closes the shell panel (spec §2).
  useEffect(() => () => setShowShell(false), [setShowShell]);
  const [dropping, setDropping] = useState(false);
  const canUpload = can(user, 'create') && ctx?.listing.resource.isDir;

  const barActive = narrow && ctx?.listing.resource.isDir && ctx.selectedCount > 0;
  const headerActions: HeaderAction[] = ctx
    ? FILE_ACTIONS.filter((a) => a.visible(ctx) && !(barActive && a.selection)).map((a) => ({
        id: a.id,
        icon: a.id === 'switchView' ? VIEW_ICONS[nextViewMode(user.viewMode)] : a.icon,
        label: t(a.label),
        pressed: a.id === 'shell' ? showShell : a.pressed?.(ctx),
        run: () => a.run(ctx),
      }))
    : [];

  // Files dragged in from the desktop upload here, or into the folder they are dropped on (create permission).
  const isFileDrag = (e: DragEvent) => e.dataTransfer.types.includes('Files');
  const onDragOver = (e: DragEvent) => {
    if (!isFileDrag(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = canUpload ? 'copy' : 'none';
    if (canUpload && !dropping) setDropping(true);
  };
  const onDragLeave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDropping(false);
  };
  const onDrop = (e: DragEvent) => {
    if (!isFileDrag(e)) return;
    e.preventDefault();
    setDropping(false);
    if (!canUpload || !ctx) return;
    const onItem = (e.target as HTMLElement).closest<HTMLElement>('[data-dir][data-index]');
    const item = onItem ? ctx.listing.items[Number(onItem.dataset.index)] : undefined;
    const dest = item?.isDir ? item.path : ops.currentDir();
    // The entries must be read before the event ends.
    const reading = fromDrop(e.dataTransfer);
    void reading.then(({ picked, emptyDirs }) => app.uploads.uploadInto(dest, picked, emptyDirs));
  };

  // A preview stays up while the next file loads (previous/next), so keys and state carry on.
  const file = listing && !listing.resource.isDir && error === null ? listing.resource : null;
  if (file && file.type !== 'text' && file.type !== 'textImmutable') {
    return (
      <Suspense fallback={null}>
        <Preview file={file} path={path} actions={headerActions} />
      </Suspense>
    );
  }

  return (
    <Layout
      header={
        <Header actions={headerActions}>
          <SearchButton />
        </Header>
      }
    >
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files from the desktop; the keyboard uploads with the Upload button */}
      <div
        className={`files${barActive ? ' files-with-bar' : ''}${dropping ? ' files-dropping' : ''}`}
        ref={scrollRef}
        onDragOver={onDragOver}
        onDragLeave={onDragLeave}
        onDrop={onDrop}
      >
        {/* The breadcrumbs name the folder on screen; its heading is for assistive technology (a text file has its own, TextView). */}
        {file === null && <h1 className="visually-hidden">{title}</h1>}
        <Breadcrumbs path={listing && !listing.resource.isDir ? listing.resource.path.replace(/\/[^/]*$/, '') || '/' : path} />
        {error !== null ? (
          <ErrorScreen code={error} file={!rawPath.endsWith('/')} onRetry={retry} />
        ) : listing === null ? null : file === null ? (
          <Listing listing={listing} scrollRef={scrollRef} busy={!current} />
        ) : (
          <TextView key={listing.resource.path} file={listing.resource} />
        )}
      </div>
      {barActive && ctx && <SelectionBar ctx={ctx} />}
      <UploadInputs />
      {showShell && ctx && (
        <Suspense fallback={null}>
          <Shell />
        </Suspense>
      )}
    </Layout>
  );
}
