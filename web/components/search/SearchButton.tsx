/** Opens the search overlay: a search-box lookalike on wide screens, an icon on narrow ones (spec §2: by click or Ctrl+F). */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { searchOpenAtom } from '../../state/search.ts';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import { useNarrow } from '../ui/useNarrow.ts';

export function SearchButton() {
  const { t } = useTranslation();
  const open = useSetAtom(searchOpenAtom);
  const narrow = useNarrow();
  if (narrow) return <IconButton icon="search" label={t('search.open')} className="search-open-icon" onClick={() => open(true)} />;
  return (
    <button type="button" className="search-open" aria-keyshortcuts="Control+F" onClick={() => open(true)}>
      <Icon name="search" size={18} />
      <span>{t('search.placeholder')}</span>
      <kbd>Ctrl F</kbd>
    </button>
  );
}
