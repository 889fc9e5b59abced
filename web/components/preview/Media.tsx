/** The viewer for one file's type: image (large preview or full size), TIFF family, audio, video with captions, PDF; else the no-preview page. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { previewUrl, rawUrl, subtitleUrl, type Resource } from '../../api/resources.ts';
import { settings } from '../../config.ts';
import { displayName } from '../../lib/names.ts';
import { baseName } from '../../lib/paths.ts';
import { FileView } from '../files/FileView.tsx';
import { Icon } from '../ui/Icon.tsx';
import { ImageViewer } from './ImageViewer.tsx';
import { TIFF_EXTENSIONS, TiffImage } from './TiffImage.tsx';

export function Media({ file, fullSize }: { file: Resource; fullSize: boolean }) {
  const { t } = useTranslation();
  const [failed, setFailed] = useState(false);
  if (failed) return <FileView file={file} />;
  if (file.type === 'image' && TIFF_EXTENSIONS.test(file.name)) return <TiffImage key={file.path} path={file.path} alt={displayName(file.name)} />;
  if (file.type === 'image') {
    const src = fullSize || !settings.ResizePreview ? rawUrl(file.path, true) : previewUrl(file.path, 'big', file.modified);
    return <ImageViewer key={`${file.path}|${fullSize}`} src={src} alt={displayName(file.name)} onError={() => setFailed(true)} />;
  }
  if (file.type === 'audio') {
    return (
      <div className="preview-audio">
        <Icon name="audio" size={96} />
        {/* biome-ignore lint/a11y/useMediaCaption: fm has no captions for audio files (subtitle files are found for videos only) */}
        <audio key={file.path} src={rawUrl(file.path, true)} controls aria-label={displayName(file.name)} />
      </div>
    );
  }
  if (file.type === 'video') {
    return (
      // biome-ignore lint/a11y/useMediaCaption: the caption tracks are the subtitle files found beside the video, when there are any
      <video key={file.path} className="preview-video" src={rawUrl(file.path, true)} controls playsInline aria-label={displayName(file.name)}>
        {(file.subtitles ?? []).map((s, i) => (
          <track key={s} kind="captions" src={subtitleUrl(s)} label={baseName(s)} default={i === 0} />
        ))}
        {t('preview.noVideo')}
      </video>
    );
  }
  if (file.type === 'pdf') return <iframe key={file.path} className="preview-pdf" src={rawUrl(file.path, true)} title={displayName(file.name)} />;
  return <FileView file={file} />;
}
