/**
 * File operations shared by the header, the keyboard, the prompts and drag and drop:
 * what is selected, delete, rename, create, copy/move with conflicts, clipboard, download.
 * `fileOps(app)` binds them to the running app; components use `useFileOps()`.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useLocation } from 'wouter';
import * as resources from '../api/resources.ts';
import type { Resource, ResourceItem } from '../api/resources.ts';
import { invalidateFiles, resourceQuery } from '../api/queries.ts';
import { type App, useApp } from '../app/context.tsx';
import { conflicts, planTransfer, sameFolder, type TransferItem } from '../lib/conflicts.ts';
import { currentAppPath, navigate } from '../lib/navigate.ts';
import { filesUrl, joinPath, parentPath, pathFromFilesUrl, samePath } from '../lib/paths.ts';
import { can } from '../lib/perm.ts';
import { userAtom } from '../state/auth.ts';
import { clipboardAtom } from '../state/clipboard.ts';
import { afterSingleDeleteAtom, selectAfterReloadAtom } from '../state/files.ts';
import { loadingAtom } from '../state/layout.ts';
import { showPromptAtom } from '../state/prompts.ts';
import { selectedAtom } from '../state/selection.ts';
import { errorNotice, notifier } from './notify.ts';

/** Starts a browser download of a URL (the `auth` cookie authenticates it). */
export function startDownload(url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.rel = 'noopener';
  a.download = '';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export type TransferAction = 'copy' | 'move';

export type FileOps = ReturnType<typeof fileOps>;

/** The path the files screen shows (from the address), or undefined elsewhere. */
export function filesPath(): string | undefined {
  return pathFromFilesUrl(currentAppPath().split('?')[0]);
}

/** The operations, bound to an app. */
export function fileOps(app: App) {
  const { store, queryClient } = app;
  const { showError } = notifier(store);

  /** The resource the files screen shows (from the query cache), if it has loaded. */
  function currentResource(): Resource | undefined {
    const path = filesPath();
    return path === undefined ? undefined : queryClient.getQueryData(resourceQuery(path).queryKey);
  }

  /** The folder new items go to: the listed folder, or the parent of the file on view; the root elsewhere. */
  function currentDir(): string {
    const res = currentResource();
    if (!res) return filesPath() ?? '/';
    return res.isDir ? res.path : parentPath(res.path);
  }

  /** True when the files screen shows a folder listing. */
  function isListing(): boolean {
    return currentResource()?.isDir ?? false;
  }

  /** The selected items of the listing (in the server's order), or the file on view. */
  function selectedItems(): ResourceItem[] {
    const res = currentResource();
    if (!res) return [];
    if (!res.isDir) return [res];
    const byPath = new Map((res.items ?? []).map((it) => [it.path, it]));
    return store
      .get(selectedAtom)
      .map((p) => byPath.get(p))
      .filter((it): it is ResourceItem => it !== undefined);
  }

  /** Every listing is stale; the one on screen refetches at once. */
  function reload(): void {
    void invalidateFiles(queryClient);
  }

  async function withLoading<T>(fn: () => Promise<T>): Promise<T> {
    store.set(loadingAtom, (n) => n + 1);
    try {
      return await fn();
    } finally {
      store.set(loadingAtom, (n) => n - 1);
    }
  }

  /** Deletes items in parallel. From a listing the listing reloads afterwards, also on failure. */
  async function deleteItems(items: ResourceItem[]): Promise<void> {
    const listed = isListing();
    const results = await withLoading(() => Promise.allSettled(items.map((i) => resources.remove(i.path))));
    const failed = reportFailures(
      items.map((i) => i.name),
      results,
    );
    if (listed) {
      store.set(selectedAtom, []);
      reload();
    } else if (failed === undefined) {
      const after = store.get(afterSingleDeleteAtom);
      if (after) after.run();
      else navigate(filesUrl(parentPath(items[0].path), true));
    }
  }

  /** Renames one item; a listing reloads with the renamed item selected, a single view goes to the new path. */
  async function renameItem(item: ResourceItem, newName: string): Promise<void> {
    const to = joinPath(parentPath(item.path), newName);
    if (to === item.path) return;
    await withLoading(() => resources.transfer('rename', item.path, to));
    if (isListing()) {
      store.set(selectAfterReloadAtom, to);
      store.set(selectedAtom, []);
      reload();
    } else {
      navigate(filesUrl(to, item.isDir), true);
    }
  }

  async function createFile(dir: string, name: string): Promise<void> {
    const path = joinPath(dir, name);
    await withLoading(() => resources.createFile(path));
    reload();
    navigate(filesUrl(path, false));
  }

  /** Creates a folder; by default the files screen opens it. */
  async function createDir(dir: string, name: string, open = true): Promise<string> {
    const path = joinPath(dir, name);
    await withLoading(() => resources.createDir(path));
    reload();
    if (open) navigate(filesUrl(path, true));
    return path;
  }

  /** Runs every item; when some fail, tells which (reportFailures) and rejects with the first reason. */
  async function runTransfer(action: TransferAction, items: TransferItem[], opts: resources.TransferOptions): Promise<void> {
    const results = await withLoading(() =>
      Promise.allSettled(items.map((i) => resources.transfer(action === 'copy' ? 'copy' : 'rename', i.from, i.to, opts))),
    );
    const failed = reportFailures(
      items.map((i) => i.name),
      results,
    );
    if (failed !== undefined) throw failed;
  }

  /**
   * Tells about the items of a batch that failed: one failure as a notice, several in the error
   * prompt, item by item (a notice vanishes, and "some of it failed" needs to say what). Returns
   * the first failure's reason, or undefined when everything succeeded.
   */
  function reportFailures(names: readonly string[], results: readonly PromiseSettledResult<unknown>[]): unknown {
    const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ name: names[i], reason: r.reason as unknown }] : []));
    if (failures.length === 0) return undefined;
    if (failures.length === 1) showError(failures[0].reason);
    else store.set(showPromptAtom, { name: 'error', props: { failures: failures.map((f) => ({ name: f.name, reason: errorNotice(f.reason) })) } });
    return failures[0].reason;
  }

  /** After a copy or move: go to the destination (unless the user opted out), or reload when it is this folder. */
  function afterTransfer(destDir: string): void {
    const redirect = store.get(userAtom)?.redirectAfterCopyMove ?? true;
    if (!redirect || samePath(destDir, currentDir())) {
      store.set(selectedAtom, []);
      reload();
    } else {
      navigate(filesUrl(destDir, true));
    }
  }

  /**
   * Copies or moves items into a folder. If any name exists there, the replace-rename prompt asks
   * (Cancel, Rename, Replace). Sources already in that folder are copied directly with rename;
   * moving items onto themselves does nothing. Resolves once done (or the prompt is shown).
   */
  async function transferTo(
    action: TransferAction,
    sources: readonly { path: string; name: string }[],
    destDir: string,
    opts: { after?: () => void; navigateAfter?: boolean } = {},
  ): Promise<void> {
    const items = planTransfer(sources, destDir);
    if (items.length === 0) return;
    const finish = () => {
      opts.after?.();
      if (opts.navigateAfter === false) {
        store.set(selectedAtom, []);
        reload();
      } else afterTransfer(destDir);
    };
    const run = async (o: resources.TransferOptions) => {
      try {
        await runTransfer(action, items, o);
      } catch (err) {
        reload();
        throw err;
      }
      finish();
    };
    if (sameFolder(items, destDir)) {
      if (action === 'move') return;
      await run({ rename: true });
      return;
    }
    let existing: string[];
    try {
      const dest = await withLoading(() => resources.get(destDir));
      existing = (dest.items ?? []).map((i) => i.name);
    } catch (err) {
      showError(err);
      throw err;
    }
    if (conflicts(items, existing).length === 0) {
      await run({});
      return;
    }
    store.set(showPromptAtom, {
      name: 'replaceRename',
      props: {
        onChoose: (choice: 'rename' | 'overwrite') => run(choice === 'rename' ? { rename: true } : { overwrite: true }),
      },
    });
  }

  /** Ctrl+C / Ctrl+X: remembers the selection and where it came from. */
  function copyToClipboard(cut: boolean): boolean {
    const user = store.get(userAtom);
    if (!can(user, cut ? 'rename' : 'create')) return false;
    const items = selectedItems();
    if (items.length === 0 || !isListing()) return false;
    store.set(clipboardAtom, { key: cut ? 'x' : 'c', items: items.map((i) => ({ from: i.path, name: i.name })), path: currentDir() });
    return true;
  }

  /** Ctrl+V: pastes into the current folder; a successful cut-paste clears the clipboard. */
  async function paste(): Promise<void> {
    const clip = store.get(clipboardAtom);
    if (!clip || !isListing()) return;
    const action: TransferAction = clip.key === 'x' ? 'move' : 'copy';
    await transferTo(
      action,
      clip.items.map((i) => ({ path: i.from, name: i.name })),
      currentDir(),
      {
        navigateAfter: false,
        after: () => {
          if (clip.key === 'x') store.set(clipboardAtom, null);
        },
      },
    ).catch(() => undefined);
  }

  /** Download: one file directly; a folder or several items through the format prompt. */
  function download(): void {
    const items = selectedItems();
    if (items.length === 1 && !items[0].isDir) {
      startDownload(resources.rawUrl(items[0].path));
      return;
    }
    const paths = items.length > 0 ? items.map((i) => i.path) : [currentDir()];
    store.set(showPromptAtom, { name: 'download', props: { paths } });
  }

  return { currentDir, isListing, selectedItems, reload, deleteItems, renameItem, createFile, createDir, transferTo, copyToClipboard, paste, download };
}

/**
 * The folder the files screen shows (the parent of a file on view), following its loads;
 * undefined until it has loaded or outside the files screen.
 */
export function useCurrentDir(): string | undefined {
  useLocation();
  const path = filesPath();
  // An observer only: it reads what the files screen loads and never fetches itself.
  const { data } = useQuery({ ...resourceQuery(path ?? '/'), enabled: false });
  if (path === undefined || !data) return undefined;
  return data.isDir ? data.path : parentPath(data.path);
}

/** The operations for the app of this component. */
export function useFileOps(): FileOps {
  const app = useApp();
  return useMemo(() => fileOps(app), [app]);
}
