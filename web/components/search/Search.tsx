/**
 * The search overlay (spec §2 "Search overlay", §4 "Search", §9): a text box, type shortcuts,
 * and results streamed from the server, 50 shown and 50 more near the bottom.
 */
import { useAtomValue, useSetAtom } from 'jotai';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useFileOps } from '../../actions/files.ts';
import { userAtom } from '../../state/auth.ts';
import { searchOpenAtom } from '../../state/search.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon, type IconName } from '../ui/Icon.tsx';
import { trapTab, useReturnFocus } from '../ui/modalFocus.ts';
import { Overlay } from '../ui/Overlay.tsx';
import { SearchResultItem } from './SearchResultItem.tsx';
import { useSearch } from './useSearch.ts';

export const SEARCH_PAGE = 50;
/** More results are shown when the list is scrolled this close to its end (px). */
export const SEARCH_MORE_PX = 100;

const TYPES: { type: string; icon: IconName; label: string }[] = [
  { type: 'image', icon: 'image', label: 'search.images' },
  { type: 'audio', icon: 'audio', label: 'search.music' },
  { type: 'video', icon: 'video', label: 'search.video' },
  { type: 'pdf', icon: 'pdf', label: 'search.pdf' },
];

export default function SearchOverlay() {
  const { currentDir } = useFileOps();
  const { t } = useTranslation();
  const setOpen = useSetAtom(searchOpenAtom);
  const exactDates = useAtomValue(userAtom)?.dateFormat ?? false;
  const [value, setValue] = useState('');
  const [limit, setLimit] = useState(SEARCH_PAGE);
  const input = useRef<HTMLInputElement>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const dir = useRef(currentDir()).current;
  const { results, state, run, runSoon, clear } = useSearch(dir);

  useReturnFocus(true);

  const close = () => {
    clear();
    setOpen(false);
  };

  // The page behind does not scroll while the overlay is open; closing restores it.
  useEffect(() => {
    const prev = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    input.current?.focus();
    return () => {
      document.body.style.overflow = prev;
    };
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close();
      } else if (dialog.current) trapTab(dialog.current, e);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  });

  // Spec §4: Enter submits; any other key (arrows and Shift included) clears the old results.
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    setLimit(SEARCH_PAGE);
    if (e.key === 'Enter') {
      e.preventDefault();
      void run(value);
    } else clear();
  };

  // A changed query runs once typing pauses.
  const change = (v: string) => {
    clear();
    setValue(v);
    setLimit(SEARCH_PAGE);
    runSoon(v);
  };

  const addType = (type: string) => {
    change(`type:${type} ${value.replace(/^type:\S+\s*/, '')}`);
    input.current?.focus();
  };

  const shown = results.slice(0, limit);
  return (
    <div className="search" ref={dialog} role="dialog" aria-modal="true" aria-label={t('search.title')}>
      <Overlay onDismiss={close} />
      <div className="search-panel">
        <div className="search-bar">
          <IconButton icon="arrowLeft" label={t('buttons.back')} onClick={close} />
          <Icon name="search" className="search-icon" />
          <input
            ref={input}
            className="search-input"
            type="search"
            aria-label={t('search.placeholder')}
            placeholder={t('search.placeholder')}
            spellCheck={false}
            autoComplete="off"
            value={value}
            onChange={(e) => change(e.target.value)}
            onKeyDown={onKeyDown}
          />
          {state === 'searching' && <span className="spinner search-spinner" role="status" aria-label={t('search.searching')} />}
        </div>
        <div
          className="search-results"
          onScroll={(e) => {
            const el = e.currentTarget;
            if (limit < results.length && el.scrollHeight - el.scrollTop - el.clientHeight < SEARCH_MORE_PX) setLimit((l) => l + SEARCH_PAGE);
          }}
        >
          {results.length === 0 && state !== 'done' && (
            <fieldset className="search-types" aria-label={t('search.types')}>
              {TYPES.map((x) => (
                <button key={x.type} type="button" className="search-type" onClick={() => addType(x.type)}>
                  <Icon name={x.icon} size={28} />
                  <span>{t(x.label)}</span>
                </button>
              ))}
            </fieldset>
          )}
          {state === 'done' && results.length === 0 && <p className="search-empty">{t('search.noResults')}</p>}
          {results.length === 0 && state === 'idle' && <p className="search-hint">{t('search.hint')}</p>}
          {results.length > 0 && (
            <p className="search-count" aria-live="polite">
              {t('search.results', { count: results.length })}
            </p>
          )}
          {shown.length > 0 && (
            <ul className="search-list" aria-label={t('search.results', { count: results.length })}>
              {shown.map((r) => (
                <SearchResultItem key={r.path} dir={dir} result={r} exactDates={exactDates} onOpen={() => setOpen(false)} />
              ))}
            </ul>
          )}
        </div>
      </div>
    </div>
  );
}
