/** The listing's column header: name, size and last modified, each sorting on click (saved to the user). */
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { useApp } from '../../app/context.tsx';
import { userAtom } from '../../state/auth.ts';
import { Icon } from '../ui/Icon.tsx';
import { sortBy } from './viewMode.ts';

export function SortHeader() {
  const { t } = useTranslation();
  const app = useApp();
  const sorting = useAtomValue(userAtom)?.sorting ?? { by: 'name', asc: true };
  const column = (by: string, label: string, cls: string) => {
    const active = sorting.by === by;
    return (
      <button
        type="button"
        className={`sort-button ${cls}${active ? ' sort-active' : ''}`}
        onClick={() => void sortBy(app, by)}
        // aria-sort belongs to a table's column header, which a listbox has not: the order is in the name.
        aria-label={active ? `${t(`files.sortBy.${by}`)}, ${t(sorting.asc ? 'files.sortedAscending' : 'files.sortedDescending')}` : t(`files.sortBy.${by}`)}
        data-sort={by}
      >
        <span>{label}</span>
        {active && <Icon name={sorting.asc ? 'arrowUp' : 'arrowDown'} size={16} />}
      </button>
    );
  };
  return (
    <div className="listing-header">
      {column('name', t('files.name'), 'col-name')}
      {column('size', t('files.size'), 'col-size')}
      {column('modified', t('files.lastModified'), 'col-modified')}
    </div>
  );
}
