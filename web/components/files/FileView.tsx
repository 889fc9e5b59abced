/** A single file without an inline preview: its details, a download button and an open-file button. */
import { useAtomValue } from 'jotai';
import { useTranslation } from 'react-i18next';
import { rawUrl, type Resource } from '../../api/resources.ts';
import { startDownload } from '../../actions/files.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact, formatSize } from '../../lib/format.ts';
import { can } from '../../lib/perm.ts';
import { userAtom } from '../../state/auth.ts';
import { Icon } from '../ui/Icon.tsx';
import { iconFor } from './Thumbnail.tsx';
import { Name, useNameTitle } from '../ui/Name.tsx';

export function FileView({ file }: { file: Resource }) {
  const { t } = useTranslation();
  const nameTitle = useNameTitle();
  const tag = useLocaleTag();
  const user = useAtomValue(userAtom);
  const mayDownload = can(user, 'download');
  return (
    <section className="file-view" aria-labelledby="file-view-name">
      <Icon name={iconFor(file)} size={72} />
      <h2 id="file-view-name" className="file-view-name" title={nameTitle(file.name)}>
        <Name name={file.name} />
      </h2>
      <p className="file-view-meta">
        {formatSize(file.size, tag)} · <time dateTime={file.modified}>{formatExact(new Date(file.modified), tag)}</time>
      </p>
      <p className="file-view-note">{t('files.noPreview')}</p>
      {mayDownload && (
        <div className="file-view-buttons">
          <button type="button" className="button button-primary" onClick={() => startDownload(rawUrl(file.path))}>
            <Icon name="download" size={18} /> {t('buttons.download')}
          </button>
          <a className="button button-flat" href={rawUrl(file.path, true)} target="_blank" rel="noopener noreferrer">
            <Icon name="external" size={18} /> {t('buttons.openFile')}
          </a>
        </div>
      )}
    </section>
  );
}
