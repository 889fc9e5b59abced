/**
 * The destination chooser of copy and move: subfolders of a location plus '..' (except at the root).
 * Double-click (or double-tap) enters a folder; a single click enters it in single-click mode,
 * otherwise selects it as the destination; clicking the selected folder deselects it. Keyboard:
 * Up/Down move, Space selects, Right enters (Left in right-to-left), Left or Backspace goes up,
 * Enter runs the prompt.
 */
import { useAtomValue, useSetAtom } from 'jotai';
import { useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { resourceQuery } from '../../api/queries.ts';
import { DOUBLE_CLICK_MS } from '../../lib/selection.ts';
import { parentPath } from '../../lib/paths.ts';
import { compareNames } from '../../../src/api/files.ts';
import { can } from '../../lib/perm.ts';
import { userAtom } from '../../state/auth.ts';
import { showPromptAtom } from '../../state/prompts.ts';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';
import { useServerData } from '../ui/useServerData.ts';

interface Entry {
  name: string;
  path: string;
}

export function FolderChooser({ start, onChange }: { start: string; onChange: (dest: string) => void }) {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  const showPrompt = useSetAtom(showPromptAtom);
  const [dir, setDir] = useState(start);
  const [selected, setSelected] = useState<string | null>(null);
  const last = useRef<{ path: string; time: number } | null>(null);
  // A folder created from here refreshes the listing through the query cache.
  const { data, error } = useServerData(resourceQuery(dir, user?.dirSizes === true));
  const entries: Entry[] | null = useMemo(() => {
    if (error !== null) return [];
    if (!data) return null;
    const folders = (data.items ?? []).filter((i) => i.isDir).sort((a, b) => compareNames(a.name, b.name));
    const list = folders.map((f) => ({ name: f.name, path: f.path }));
    return dir === '/' ? list : [{ name: '..', path: parentPath(dir) }, ...list];
  }, [data, error, dir]);

  // The destination is reported in the same event as the change, so an Enter right after a
  // click already submits the new destination.
  const choose = (path: string | null) => {
    setSelected(path);
    onChange(path ?? dir);
  };
  const toggleChoice = (path: string) => choose(selected === path ? null : path);

  const enter = (path: string) => {
    setSelected(null);
    setDir(path);
    onChange(path);
    last.current = null;
  };

  const click = (e: Entry, time: number) => {
    const prev = last.current;
    last.current = { path: e.path, time };
    if (user?.singleClick || (prev && prev.path === e.path && time - prev.time <= DOUBLE_CLICK_MS)) {
      enter(e.path);
      return;
    }
    toggleChoice(e.path);
  };

  return (
    <div className="chooser">
      <p className="chooser-location">
        {t('prompts.currentlyNavigating')} <code>{dir}</code>
      </p>
      <div className="chooser-list" role="listbox" aria-label={t('prompts.destination')}>
        {entries === null && <div className="chooser-empty">{t('files.loading')}</div>}
        {entries?.length === 0 && <div className="chooser-empty">{t('prompts.noSubfolders')}</div>}
        {entries?.map((e) => (
          <div
            key={e.path + e.name}
            role="option"
            aria-selected={selected === e.path}
            tabIndex={0}
            className={`chooser-item${selected === e.path ? ' chooser-item-selected' : ''}`}
            onClick={(ev) => click(e, ev.timeStamp)}
            onKeyDown={(ev) => {
              const rtl = document.documentElement.dir === 'rtl';
              const option = ev.currentTarget;
              if (ev.key === 'Enter') {
                // Enter runs the prompt (spec §2); the arrows walk the folders.
                ev.preventDefault();
                option.closest('form')?.requestSubmit();
              } else if (ev.key === ' ') {
                ev.preventDefault();
                toggleChoice(e.path);
              } else if (ev.key === (rtl ? 'ArrowLeft' : 'ArrowRight')) {
                ev.preventDefault();
                enter(e.path);
              } else if (ev.key === (rtl ? 'ArrowRight' : 'ArrowLeft') || ev.key === 'Backspace') {
                ev.preventDefault();
                if (dir !== '/') enter(parentPath(dir));
              } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
                ev.preventDefault();
                const next = ev.key === 'ArrowDown' ? option.nextElementSibling : option.previousElementSibling;
                if (next instanceof HTMLElement) next.focus();
              }
            }}
          >
            <Icon name={e.name === '..' ? 'arrowUp' : 'folder'} />
            <span>
              <Name name={e.name} />
            </span>
          </div>
        ))}
      </div>
      {can(user, 'create') && (
        <button
          type="button"
          className="button button-flat chooser-new"
          onClick={() =>
            showPrompt({
              name: 'newDir',
              props: {
                dir,
                onCreated: (path: string) => {
                  enter(path);
                },
              },
            })
          }
        >
          <Icon name="newFolder" size={18} /> {t('sidebar.newFolder')}
        </button>
      )}
    </div>
  );
}
