import { memo, useState } from 'react';
import { previewUrl, type ResourceItem } from '../../api/resources.ts';
import { settings } from '../../config.ts';
import { Icon, type IconName } from '../ui/Icon.tsx';

const ICONS: Record<string, IconName> = {
  image: 'image',
  audio: 'audio',
  video: 'video',
  pdf: 'pdf',
  text: 'text',
  textImmutable: 'text',
  invalid_link: 'brokenLink',
};

export function iconFor(item: Pick<ResourceItem, 'isDir' | 'type'>): IconName {
  return item.isDir ? 'folder' : (ICONS[item.type] ?? 'file');
}

/** Tries a failed thumbnail this many times before falling back to the icon. */
const ATTEMPTS = 3;

/** A lazy thumbnail for images (when the instance enables them), else the type's icon. */
export const Thumbnail = memo(function Thumbnail({ item, size }: { item: ResourceItem; size: number }) {
  const [attempt, setAttempt] = useState(0);
  const useThumb = settings.EnableThumbs && item.type === 'image' && attempt < ATTEMPTS;
  if (!useThumb) return <Icon name={iconFor(item)} size={size} />;
  const src = previewUrl(item.path, 'thumb', item.modified) + (attempt ? `&attempt=${attempt}` : '');
  return (
    <img
      className="thumbnail"
      src={src}
      alt=""
      loading="lazy"
      decoding="async"
      draggable={false}
      onError={() => setTimeout(() => setAttempt((a) => a + 1), 200 * (attempt + 1))}
    />
  );
});
