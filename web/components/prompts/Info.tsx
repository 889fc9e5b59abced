import { useSetAtom } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CHECKSUM_ALGORITHMS, checksum, type ChecksumAlgorithm, type Resource, type ResourceItem } from '../../api/resources.ts';
import { useNotify } from '../../actions/notify.ts';
import { formatExact, formatSize } from '../../lib/format.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';
import { Name, useNameTitle } from '../ui/Name.tsx';

function Checksum({ path, algo }: { path: string; algo: ChecksumAlgorithm }) {
  const { showError } = useNotify();
  const { t } = useTranslation();
  const [value, setValue] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reveal = async () => {
    setBusy(true);
    try {
      setValue(await checksum(path, algo));
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="info-row">
      <dt>{algo.toUpperCase()}</dt>
      <dd>
        {value === null ? (
          <button type="button" className="link-button" onClick={reveal} disabled={busy} aria-busy={busy} data-checksum={algo}>
            {busy ? t('files.loading') : t('prompts.show')}
          </button>
        ) : (
          <code className="checksum" data-checksum-value={algo}>
            {value}
          </code>
        )}
      </dd>
    </div>
  );
}

/**
 * Information on the selection: name and date for one item, size for files and several items,
 * counts for a folder with nothing selected, checksums for one file (each revealed on click).
 */
export function InfoPrompt({ items, dir }: { items: ResourceItem[]; dir?: Resource }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const nameTitle = useNameTitle();
  const close = useSetAtom(closePromptAtom);
  const single = items.length === 1 ? items[0] : items.length === 0 ? dir : undefined;
  const files = items.filter((i) => !i.isDir);
  const showSize = files.length > 0;
  const size = files.reduce((n, i) => n + i.size, 0);
  const folderCounts = items.length === 0 && dir?.isDir;
  const dirs = dir?.numDirs ?? dir?.items?.filter((i) => i.isDir).length ?? 0;
  const fileCount = dir?.numFiles ?? dir?.items?.filter((i) => !i.isDir).length ?? 0;
  return (
    <PromptFrame title={t('prompts.fileInfo')} onSubmit={() => close()} buttons={<SubmitButton label={t('buttons.ok')} autoFocus />}>
      <dl className="info-list">
        {single && (
          <div className="info-row">
            <dt>{t('prompts.displayName')}</dt>
            <dd className="info-name" title={single.name ? nameTitle(single.name) : undefined}>
              {single.name ? <Name name={single.name} /> : '/'}
            </dd>
          </div>
        )}
        {items.length > 1 && (
          <div className="info-row">
            <dt>{t('prompts.selectedCount')}</dt>
            <dd>{items.length}</dd>
          </div>
        )}
        {showSize && (
          <div className="info-row">
            <dt>{t('prompts.size')}</dt>
            <dd title={`${size} B`}>{formatSize(size, tag)}</dd>
          </div>
        )}
        {single && (
          <div className="info-row">
            <dt>{t('prompts.lastModified')}</dt>
            <dd>{formatExact(new Date(single.modified), tag)}</dd>
          </div>
        )}
        {folderCounts && (
          <>
            <div className="info-row">
              <dt>{t('prompts.numberFiles')}</dt>
              <dd>{fileCount}</dd>
            </div>
            <div className="info-row">
              <dt>{t('prompts.numberDirs')}</dt>
              <dd>{dirs}</dd>
            </div>
          </>
        )}
        {single && !single.isDir && CHECKSUM_ALGORITHMS.map((a) => <Checksum key={a} path={single.path} algo={a} />)}
      </dl>
    </PromptFrame>
  );
}
