/**
 * The search overlay (spec §2 "Search overlay", §4 "Search", §9): a text box, type shortcuts,
 * and results streamed from the server, 50 shown and 50 more near the bottom.
 */
import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { search, type SearchResult } from '../../api/search.ts';
import { useFileOps } from '../../actions/files.ts';
import { useNotify } from '../../actions/notify.ts';
import { filesUrl, joinPath } from '../../lib/paths.ts';
import { searchOpenAtom } from '../../state/search.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon, type IconName } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';

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
  const { showError } = useNotify();
  const { t } = useTranslation();
  const setOpen = useSetAtom(searchOpenAtom);
  const [value, setValue] = useState('');
  const [results, setResults] = useState<SearchResult[]>([]);
  const [state, setState] = useState<'idle' | 'searching' | 'done'>('idle');
  const [limit, setLimit] = useState(SEARCH_PAGE);
  const input = useRef<HTMLInputElement>(null);
  const running = useRef<AbortController | null>(null);
  const dir = useRef(currentDir()).current;

  const close = () => {
    running.current?.abort();
    setResults([]);
    setOpen(false);
  };

  // The page behind does not scroll while the overlay is open; closing restores it.
  useEffect(() => {
    const prev = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    input.current?.focus();
    return () => {
      document.body.style.overflow = prev;
      running.current?.abort();
    };
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopImmediatePropagation();
        close();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  });

  const submit = async () => {
    const query = value.trim();
    if (!query) return;
    running.current?.abort();
    const ac = new AbortController();
    running.current = ac;
    setResults([]);
    setLimit(SEARCH_PAGE);
    setState('searching');
    try {
      await search(dir, query, (batch) => setResults((r) => [...r, ...batch]), ac.signal);
      if (!ac.signal.aborted) setState('done');
    } catch (err) {
      if (ac.signal.aborted) return;
      setState('idle');
      showError(err);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      void submit();
    }
  };

  const change = (v: string) => {
    // A new query: the old results go.
    running.current?.abort();
    setValue(v);
    setResults([]);
    setState('idle');
  };

  const addType = (type: string) => {
    change(`type:${type} ${value.replace(/^type:\S+\s*/, '')}`);
    input.current?.focus();
  };

  const shown = results.slice(0, limit);
  return (
    <div className="search" role="dialog" aria-modal="true" aria-label={t('search.title')}>
      <div className="overlay" onClick={close} />
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
            <div className="search-types" role="group" aria-label={t('search.types')}>
              {TYPES.map((x) => (
                <button key={x.type} type="button" className="search-type" onClick={() => addType(x.type)}>
                  <Icon name={x.icon} size={28} />
                  <span>{t(x.label)}</span>
                </button>
              ))}
            </div>
          )}
          {state === 'done' && results.length === 0 && <p className="search-empty">{t('search.noResults')}</p>}
          {results.length === 0 && state === 'idle' && <p className="search-hint">{t('search.hint')}</p>}
          {shown.length > 0 && (
            <ul className="search-list" aria-label={t('search.results', { count: results.length })}>
              {shown.map((r) => {
                const full = joinPath(dir, r.path);
                return (
                  <li key={r.path}>
                    <Link href={filesUrl(full, r.dir)} className="search-result" onClick={() => setOpen(false)}>
                      <Icon name={r.dir ? 'folder' : 'file'} className={r.dir ? 'search-folder' : undefined} />
                      <span className="search-path">
                        <Name name={r.path} />
                      </span>
                    </Link>
                  </li>
                );
              })}
            </ul>
          )}
        </div>
      </div>
    </div>
  );
}
