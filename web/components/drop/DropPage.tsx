/**
 * The page of an upload-only (drop) link: the folder's name and the link's limits, a zone that
 * takes dropped files and folders, pickers for files and for a folder, and each upload with its
 * progress and outcome. Nothing of the folder's contents is ever shown (the server sends none).
 */
import { type DragEvent, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DropInfo } from '../../api/shares.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatSize } from '../../lib/format.ts';
import { displayName } from '../../lib/names.ts';
import { fromDrop, fromInput } from '../upload/pickFiles.ts';
import { Icon } from '../ui/Icon.tsx';
import { DropList } from './DropList.tsx';
import { useDrops } from './useDrops.ts';

export function DropPage({ hash, token, info }: { hash: string; token: string; info: DropInfo }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const { items, add, retry } = useDrops(hash, token);
  const [over, setOver] = useState(false);
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const name = displayName(info.name) || t('share.root');
  const { limits, left } = info;

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void fromDrop(e.dataTransfer).then(({ picked }) => add(picked));
  };
  const onDragOver = (e: DragEvent) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setOver(true);
  };
  const onPick = (input: HTMLInputElement | null) => {
    if (!input) return;
    add(fromInput(input.files));
    input.value = '';
  };

  return (
    <section className="card drop-page" aria-labelledby="drop-title">
      <Icon name="upload" size={40} className="share-icon" />
      <h2 className="card-title" id="drop-title">
        {t('drop.title', { name })}
      </h2>
      <div className="card-body">
        <p>{t('drop.message')}</p>
        {(limits.maxFiles !== undefined || limits.maxFileSize !== undefined || limits.maxBytes !== undefined) && (
          <ul className="drop-limits">
            {limits.maxFiles !== undefined && <li>{t('drop.filesLeft', { count: left.maxFiles ?? 0, max: limits.maxFiles })}</li>}
            {limits.maxFileSize !== undefined && <li>{t('drop.largestFile', { size: formatSize(limits.maxFileSize, tag) })}</li>}
            {limits.maxBytes !== undefined && (
              <li>{t('drop.bytesLeft', { size: formatSize(left.maxBytes ?? 0, tag), max: formatSize(limits.maxBytes, tag) })}</li>
            )}
          </ul>
        )}
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files from the desktop; the keyboard uses the two buttons inside it */}
        <div
          className={`drop-zone${over ? ' drop-zone-over' : ''}`}
          onDragOver={onDragOver}
          onDragLeave={() => setOver(false)}
          onDrop={onDrop}
          data-drop-zone=""
        >
          <p className="drop-zone-text">{t('drop.dropHere')}</p>
          <div className="drop-buttons">
            <button type="button" className="button button-primary" onClick={() => files.current?.click()}>
              <Icon name="file" size={18} /> {t('drop.chooseFiles')}
            </button>
            <button type="button" className="button button-flat" onClick={() => folder.current?.click()}>
              <Icon name="folder" size={18} /> {t('drop.chooseFolder')}
            </button>
          </div>
          <input ref={files} type="file" multiple hidden aria-hidden="true" tabIndex={-1} data-drop="files" onChange={() => onPick(files.current)} />
          <input
            ref={folder}
            type="file"
            multiple
            hidden
            aria-hidden="true"
            tabIndex={-1}
            data-drop="folder"
            {...{ webkitdirectory: '' }}
            onChange={() => onPick(folder.current)}
          />
        </div>
        <DropList items={items} onRetry={retry} />
      </div>
    </section>
  );
}
