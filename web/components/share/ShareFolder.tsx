/** The shared folder's items, 100 at a time, with multi-select download and copy link for one selected file (spec §9). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import type { ResourceItem } from '../../api/resources.ts';
import { startDownload } from '../../actions/files.ts';
import { settings } from '../../config.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatSize } from '../../lib/format.ts';
import { displayName } from '../../lib/names.ts';
import { shareLinkHref, shareUrl } from '../../lib/shareLinks.ts';
import { iconFor } from '../files/Thumbnail.tsx';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';
import { useCopyLink } from './useCopyLink.ts';

/** Items listed at first, and added per click on "more" (spec §9). */
export const SHARE_PAGE_ITEMS = 100;

/** The public download URL of a path inside the share. */
export type ShareDownloadUrl = (path: string, opts?: { inline?: boolean; algo?: string; files?: string[] }) => string;

/** The public preview URL of an image inside the share (`modified` makes it cacheable). */
export type SharePreviewUrl = (path: string, size: 'thumb' | 'big', modified?: string) => string;

/** `items` come in the server's order. The page remounts this per location (selection and paging start again). */
export interface ShareFolderProps {
  hash: string;
  items: ResourceItem[];
  format: string;
  dl: ShareDownloadUrl;
  preview: SharePreviewUrl;
}

export function ShareFolder({ hash, items, format, dl, preview }: ShareFolderProps) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const copy = useCopyLink();
  const [selected, setSelected] = useState<string[]>([]);
  const [limit, setLimit] = useState(SHARE_PAGE_ITEMS);
  const selectedItems = items.filter((i) => selected.includes(i.path));
  const singleFile = selectedItems.length === 1 && !selectedItems[0].isDir ? selectedItems[0] : undefined;
  const toggle = (p: string) => setSelected((s) => (s.includes(p) ? s.filter((x) => x !== p) : [...s, p]));
  return (
    <section className="card share-listing" aria-label={t('files.listing')}>
      <div className="share-listing-bar">
        <p className="share-listing-count" aria-live="polite">
          {selected.length > 0 ? t('files.selectedCount', { count: selected.length }) : t('share.itemCount', { count: items.length })}
        </p>
        {singleFile && (
          <button
            type="button"
            className="button button-flat"
            onClick={() => void copy(shareUrl(window.location.origin, settings.BaseURL, hash, singleFile.path))}
          >
            <Icon name="link" size={18} /> {t('buttons.copyLink')}
          </button>
        )}
        {selected.length > 0 && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => startDownload(singleFile ? dl(singleFile.path) : dl('/', { files: selected, algo: format }))}
          >
            <Icon name="download" size={18} /> {t('share.downloadSelected')}
          </button>
        )}
      </div>
      {items.length === 0 ? (
        <div className="listing-empty">
          <Icon name="folderOpen" size={48} />
          <p>{t('files.lonely')}</p>
        </div>
      ) : (
        <ul className="share-items">
          {items.slice(0, limit).map((item) => {
            const on = selected.includes(item.path);
            return (
              <li key={item.path} className={`share-item${on ? ' share-item-selected' : ''}`}>
                <input
                  type="checkbox"
                  className="share-check"
                  checked={on}
                  aria-label={t('share.select', { name: displayName(item.name) })}
                  onChange={() => toggle(item.path)}
                />
                {settings.EnableThumbs && item.type === 'image' ? (
                  <img className="share-thumb" src={preview(item.path, 'thumb', item.modified)} alt="" loading="lazy" decoding="async" />
                ) : (
                  <Icon name={iconFor(item)} className={item.isDir ? 'share-item-folder' : undefined} />
                )}
                <Link href={shareLinkHref(hash, item.path, item.isDir)} className="share-item-name">
                  <Name name={item.name} />
                </Link>
                <span className="share-item-size">{item.isDir ? '—' : formatSize(item.size, tag)}</span>
              </li>
            );
          })}
        </ul>
      )}
      {limit < items.length && (
        <button type="button" className="button button-flat share-more" onClick={() => setLimit((l) => l + SHARE_PAGE_ITEMS)}>
          {t('share.more', { count: Math.min(SHARE_PAGE_ITEMS, items.length - limit) })}
        </button>
      )}
    </section>
  );
}
