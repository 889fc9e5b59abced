import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { breadcrumbs, visibleCrumbs } from '../../lib/paths.ts';
import { Icon } from '../ui/Icon.tsx';
import { displayName, hasEscapes } from '../../lib/names.ts';
import { Name, useNameTitle } from '../ui/Name.tsx';

/**
 * A home link plus the decoded path segments; beyond 3 segments the rest hides behind an ellipsis.
 * `folderUrl` makes each crumb's link (the files view's by default; the analyzer passes its own).
 */
export function Breadcrumbs({ path, folderUrl }: { path: string; folderUrl?: (path: string) => string }) {
  const { t } = useTranslation();
  const nameTitle = useNameTitle();
  const { hidden, shown } = visibleCrumbs(breadcrumbs(path, folderUrl));
  const last = shown.length - 1;
  return (
    <nav className="breadcrumbs" aria-label={t('files.breadcrumbs')}>
      <Link href={folderUrl?.('/') ?? '/files/'} className="breadcrumb" aria-label={t('files.home')} title={t('files.home')}>
        <Icon name="home" size={18} />
      </Link>
      {hidden && (
        <>
          <Icon name="chevronRight" size={16} className="breadcrumb-sep" />
          <Link href={hidden.url} className="breadcrumb" title={displayName(path)}>
            …
          </Link>
        </>
      )}
      {shown.map((c, i) => (
        <span key={c.url} className="breadcrumb-part">
          <Icon name="chevronRight" size={16} className="breadcrumb-sep" />
          <Link href={c.url} className="breadcrumb" aria-current={i === last ? 'page' : undefined} title={hasEscapes(c.name) ? nameTitle(c.name) : undefined}>
            <Name name={c.name} />
          </Link>
        </span>
      ))}
    </nav>
  );
}
