/** The card of the shared file or folder: preview or icon, name, sizes and dates, downloads, copy link, QR code. */
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { PROMPT_ARCHIVE_FORMATS } from '../../../src/api/files.ts';
import type { ResourceItem } from '../../api/resources.ts';
import type { PublicResource } from '../../api/shares.ts';
import { startDownload } from '../../actions/files.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatSize } from '../../lib/format.ts';
import { displayName } from '../../lib/names.ts';
import { iconFor } from '../files/Thumbnail.tsx';
import { Icon } from '../ui/Icon.tsx';
import { Name } from '../ui/Name.tsx';
import type { ShareDownloadUrl, SharePreviewUrl } from './ShareFolder.tsx';
import { useCopyLink } from './useCopyLink.ts';

const ShareQr = lazy(() => import('./ShareQr.tsx'));

export interface ShareInfoProps {
  res: PublicResource;
  name: string;
  subpath: string;
  /** The folder's items (for the counts when the server gives none). */
  items: ResourceItem[];
  /** The absolute link of this page (copy link, QR code). */
  pageLink: string;
  format: string;
  onFormat(format: string): void;
  dl: ShareDownloadUrl;
  preview: SharePreviewUrl;
}

export function ShareInfo({ res: r, name, subpath, items, pageLink, format, onFormat, dl, preview }: ShareInfoProps) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const copy = useCopyLink();
  const isImage = !r.isDir && r.type === 'image';
  return (
    <section className="card share-info" aria-labelledby="share-name">
      {isImage ? (
        <img className="share-image" src={preview(subpath, 'big', r.modified)} alt={displayName(name)} />
      ) : (
        <Icon name={iconFor(r)} size={72} className={r.isDir ? 'share-icon share-icon-folder' : 'share-icon'} />
      )}
      <h2 className="share-name" id="share-name">
        <Name name={name} />
      </h2>
      <dl className="info-list share-meta">
        {!r.isDir && (
          <div className="info-row">
            <dt>{t('prompts.size')}</dt>
            <dd>{formatSize(r.size, tag)}</dd>
          </div>
        )}
        {r.isDir && (
          <>
            <div className="info-row">
              <dt>{t('prompts.numberFiles')}</dt>
              <dd>{r.numFiles ?? items.filter((i) => !i.isDir).length}</dd>
            </div>
            <div className="info-row">
              <dt>{t('prompts.numberDirs')}</dt>
              <dd>{r.numDirs ?? items.filter((i) => i.isDir).length}</dd>
            </div>
          </>
        )}
        <div className="info-row">
          <dt>{t('prompts.lastModified')}</dt>
          <dd>{formatExact(new Date(r.modified), tag)}</dd>
        </div>
      </dl>
      <div className="share-buttons">
        {r.isDir ? (
          <div className="share-download-folder">
            <select className="input" aria-label={t('share.format')} value={format} onChange={(e) => onFormat(e.target.value)}>
              {PROMPT_ARCHIVE_FORMATS.map((f) => (
                <option key={f.algo} value={f.algo}>
                  {f.label}
                </option>
              ))}
            </select>
            <button type="button" className="button button-primary" onClick={() => startDownload(dl(subpath, { algo: format }))}>
              <Icon name="download" size={18} /> {t('buttons.download')}
            </button>
          </div>
        ) : (
          <>
            <button type="button" className="button button-primary" onClick={() => startDownload(dl(subpath))}>
              <Icon name="download" size={18} /> {t('buttons.download')}
            </button>
            <a className="button button-flat" href={dl(subpath, { inline: true })} target="_blank" rel="noopener noreferrer">
              <Icon name="external" size={18} /> {t('buttons.openFile')}
            </a>
            <button type="button" className="button button-flat" onClick={() => void copy(pageLink)}>
              <Icon name="link" size={18} /> {t('buttons.copyLink')}
            </button>
          </>
        )}
      </div>
      <div className="share-qr">
        <Suspense fallback={<div className="share-qr-placeholder" />}>
          <ShareQr value={pageLink} label={t('share.qrCode')} />
        </Suspense>
      </div>
    </section>
  );
}
