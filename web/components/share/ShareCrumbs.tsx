import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { joinPath, trimSlash } from '../../lib/paths.ts';
import { shareLinkHref } from '../../lib/shareLinks.ts';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';

/** The share root plus the sub-path's segments, each linking into the share. */
export function ShareCrumbs({ hash, subpath, root }: { hash: string; subpath: string; root?: string }) {
  const { t } = useTranslation();
  const parts = trimSlash(subpath).split('/').filter(Boolean);
  return (
    <nav className="breadcrumbs" aria-label={t('files.breadcrumbs')}>
      <Link href={shareLinkHref(hash, '/', true)} className="breadcrumb" aria-label={t('share.root')} title={t('share.root')}>
        <Icon name="share" size={18} />
      </Link>
      {root && (
        <span className="breadcrumb-part">
          <Icon name="chevronRight" size={16} className="breadcrumb-sep" />
          <span className="breadcrumb" aria-current="page">
            <Name name={root} />
          </span>
        </span>
      )}
      {parts.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a crumb is its depth (two folders may share a name)
        <span key={i} className="breadcrumb-part">
          <Icon name="chevronRight" size={16} className="breadcrumb-sep" />
          <Link
            href={shareLinkHref(hash, joinPath('/', parts.slice(0, i + 1).join('/')), i < parts.length - 1)}
            className="breadcrumb"
            aria-current={i === parts.length - 1 ? 'page' : undefined}
          >
            <Name name={p} />
          </Link>
        </span>
      ))}
    </nav>
  );
}
