/**
 * The preview of one file (spec §2 "Preview of one file", §4 "Preview", §9): image (large
 * preview or full size, zoomable), TIFF family decoded in the browser, audio, video with caption
 * tracks, PDF, or the no-preview page; previous/next across the folder's media items.
 */
import { useQuery } from '@tanstack/react-query';
import { useAtomValue, useSetAtom, useStore } from 'jotai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { resourceQuery } from '../../api/queries.ts';
import { userAtom } from '../../state/auth.ts';
import type { Resource, ResourceItem } from '../../api/resources.ts';
import { settings } from '../../config.ts';
import { filesUrl, parentPath } from '../../lib/paths.ts';
import { promptsAtom } from '../../state/prompts.ts';
import { searchOpenAtom } from '../../state/search.ts';
import { afterSingleDeleteAtom } from '../../state/files.ts';
import type { HeaderAction } from '../layout/Header.tsx';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import { useTitle } from '../ui/useTitle.ts';
import { Media } from './Media.tsx';
import { TIFF_EXTENSIONS } from './TiffImage.tsx';
import { displayName } from '../../lib/names.ts';
import { Name, useNameTitle } from '../ui/Name.tsx';

/** Previous and next move across these types (spec §2). */
const MEDIA = new Set(['image', 'video', 'audio', 'blob']);
/** The arrows hide after this long without mouse movement (spec §9). */
export const ARROWS_HIDE_MS = 1500;
const MOUSE_THROTTLE_MS = 500;

/** The folder's media items, in the user's order, for previous/next. */
function useSiblings(path: string): ResourceItem[] {
  // The server sends the folder in the user's order.
  // The same folder data as the listing's (with folder sizes when the user shows them): they share the cache.
  const dirSizes = useAtomValue(userAtom)?.dirSizes === true;
  const { data } = useQuery(resourceQuery(parentPath(path), dirSizes));
  return useMemo(() => (data?.items ?? []).filter((i) => !i.isDir && MEDIA.has(i.type)), [data]);
}

/** `path` is the file the address names: while it loads, `file` is still the previous one. */
export default function Preview({ file, path, actions }: { file: Resource; path: string; actions: HeaderAction[] }) {
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const siblings = useSiblings(path);
  const store = useStore();
  const setAfterSingleDelete = useSetAtom(afterSingleDeleteAtom);
  const [fullSize, setFullSize] = useState(false);
  const [arrows, setArrows] = useState(true);
  const hovered = useRef(false);
  const hideTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const lastMove = useRef(0);
  useTitle(displayName(file.name));
  const nameTitle = useNameTitle();

  const index = siblings.findIndex((i) => i.path === path);
  const prev = index > 0 ? siblings[index - 1] : undefined;
  const next = index >= 0 && index < siblings.length - 1 ? siblings[index + 1] : undefined;
  const go = useCallback((item: ResourceItem | undefined) => item && navigate(filesUrl(item.path, false), { replace: true }), [navigate]);
  const close = useCallback(() => navigate(filesUrl(parentPath(path), true)), [navigate, path]);

  // Deleting from here moves to the next item, else the previous, else back to the folder (spec §4).
  useEffect(() => {
    setAfterSingleDelete({
      run: () => {
        if (next) go(next);
        else if (prev) go(prev);
        else close();
      },
    });
    return () => setAfterSingleDelete(null);
  }, [next, prev, go, close, setAfterSingleDelete]);

  const showArrows = useCallback(() => {
    setArrows(true);
    clearTimeout(hideTimer.current);
    hideTimer.current = setTimeout(() => {
      if (!hovered.current) setArrows(false);
    }, ARROWS_HIDE_MS);
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the arrows show again on each new file
  useEffect(() => {
    showArrows();
    return () => clearTimeout(hideTimer.current);
  }, [path, showArrows]);

  const searchOpen = useAtomValue(searchOpenAtom);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (store.get(promptsAtom).length > 0 || searchOpen || e.ctrlKey || e.metaKey || e.altKey) return;
      const el = e.target as HTMLElement | null;
      // Media controls and fields keep their own keys.
      if (el && (el.closest('input, textarea, select, audio, video') || el.isContentEditable)) return;
      if (e.key === 'ArrowRight' || (e.key === 'Enter' && !el?.closest('button, a'))) {
        if (next) {
          e.preventDefault();
          go(next);
        }
      } else if (e.key === 'ArrowLeft') {
        if (prev) {
          e.preventDefault();
          go(prev);
        }
      } else if (e.key === 'Escape') {
        e.preventDefault();
        close();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [next, prev, go, close, searchOpen, store]);

  const isImage = file.type === 'image' && !TIFF_EXTENSIONS.test(file.name);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a moving pointer shows the arrows; the keyboard shows them by focusing one (onFocus)
    <div
      className="preview"
      onMouseMove={() => {
        const now = performance.now();
        if (now - lastMove.current < MOUSE_THROTTLE_MS) return;
        lastMove.current = now;
        showArrows();
      }}
    >
      <header className="preview-header">
        <IconButton icon="close" label={t('buttons.close')} onClick={close} />
        <h1 className="preview-title" title={nameTitle(file.name)}>
          <Name name={file.name} />
        </h1>
        <div className="preview-actions">
          {isImage && settings.ResizePreview && (
            <IconButton
              icon={fullSize ? 'shrink' : 'expand'}
              label={t(fullSize ? 'preview.largePreview' : 'preview.fullSize')}
              aria-pressed={fullSize}
              onClick={() => setFullSize(!fullSize)}
            />
          )}
          {actions.map((a) => (
            <IconButton key={a.id} icon={a.icon} label={a.label} data-action={a.id} onClick={a.run} />
          ))}
        </div>
      </header>
      <main className="preview-body">
        {/* A new file or size is a new Media: its state (a failed load) starts again. */}
        <Media key={`${file.path}|${fullSize}`} file={file} fullSize={fullSize} />
        {prev && (
          <button
            type="button"
            className={`preview-arrow preview-prev${arrows ? '' : ' preview-arrow-hidden'}`}
            aria-label={t('buttons.previous')}
            title={t('buttons.previous')}
            onMouseEnter={() => (hovered.current = true)}
            onMouseLeave={() => (hovered.current = false)}
            onFocus={showArrows}
            onClick={() => go(prev)}
          >
            <Icon name="chevronLeft" size={32} />
          </button>
        )}
        {next && (
          <button
            type="button"
            className={`preview-arrow preview-next${arrows ? '' : ' preview-arrow-hidden'}`}
            aria-label={t('buttons.next')}
            title={t('buttons.next')}
            onMouseEnter={() => (hovered.current = true)}
            onMouseLeave={() => (hovered.current = false)}
            onFocus={showArrows}
            onClick={() => go(next)}
          >
            <Icon name="chevronRight" size={32} />
          </button>
        )}
      </main>
    </div>
  );
}
