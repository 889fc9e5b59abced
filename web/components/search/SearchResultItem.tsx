/** One search result: the type's icon, the path below the searched folder, size and modified date. */
import { Link } from 'wouter';
import type { SearchResult } from '../../api/search.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatModified, formatSize } from '../../lib/format.ts';
import { filesUrl, joinPath } from '../../lib/paths.ts';
import { iconFor } from '../files/Thumbnail.tsx';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';

export function SearchResultItem({ dir, result, exactDates, onOpen }: { dir: string; result: SearchResult; exactDates: boolean; onOpen: () => void }) {
  const tag = useLocaleTag();
  const date = new Date(result.modified);
  return (
    <li>
      <Link href={filesUrl(joinPath(dir, result.path), result.dir)} className="search-result" onClick={onOpen}>
        <Icon name={iconFor({ isDir: result.dir, type: result.type ?? 'blob' })} className={result.dir ? 'search-folder' : undefined} />
        <span className="search-path">
          <Name name={result.path} />
        </span>
        <span className="search-meta">
          <span className="search-size">{result.dir ? '—' : formatSize(result.size, tag)}</span>
          <time className="search-date" dateTime={result.modified} title={Number.isNaN(date.getTime()) ? undefined : formatExact(date, tag)}>
            {formatModified(result.modified, tag, exactDates)}
          </time>
        </span>
      </Link>
    </li>
  );
}
