/** One entry of the listing (a list row, a mosaic card or a gallery tile). */
import { memo, type DragEvent, type KeyboardEvent, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { ViewMode } from '../../../src/api/user.ts';
import type { ResourceItem } from '../../api/resources.ts';
import { formatExact, formatModified, formatSize } from '../../lib/format.ts';
import { Icon } from '../ui/Icon.tsx';
import { Thumbnail } from './Thumbnail.tsx';
import { Name, useNameTitle } from '../ui/Name.tsx';

export interface ItemHandlers {
  click(index: number, e: MouseEvent): void;
  keyDown(index: number, e: KeyboardEvent): void;
  dragStart(index: number, e: DragEvent): void;
  dragOver(index: number, e: DragEvent): void;
  dragLeave(index: number): void;
  drop(index: number, e: DragEvent): void;
}

export interface ListingItemProps {
  item: ResourceItem;
  index: number;
  /** Items in the folder: only the rendered ones exist in the page (virtual list). */
  count: number;
  selected: boolean;
  tabbable: boolean;
  dropTarget: boolean;
  /** Cut to the clipboard (shown faded). */
  cut: boolean;
  draggable: boolean;
  multiple: boolean;
  mode: ViewMode;
  tag: string;
  exactDates: boolean;
  handlers: ItemHandlers;
}

export const ListingItem = memo(function ListingItem(p: ListingItemProps) {
  const { t } = useTranslation();
  const nameTitle = useNameTitle();
  const { item, index, handlers: h } = p;
  const date = new Date(item.modified);
  const invalid = item.type === 'invalid_link';
  const classes = ['item', `item-${p.mode === 'mosaic gallery' ? 'gallery' : p.mode}`];
  if (p.selected) classes.push('item-selected');
  if (p.dropTarget) classes.push('item-drop');
  if (invalid) classes.push('item-invalid');
  if (p.cut) classes.push('item-cut');
  return (
    <div
      role="option"
      id={`item-${index}`}
      aria-selected={p.selected}
      aria-setsize={p.count}
      aria-posinset={index + 1}
      tabIndex={p.tabbable ? 0 : -1}
      className={classes.join(' ')}
      data-index={index}
      data-dir={item.isDir || undefined}
      draggable={p.draggable}
      onClick={(e) => h.click(index, e)}
      onKeyDown={(e) => h.keyDown(index, e)}
      onDragStart={(e) => h.dragStart(index, e)}
      onDragOver={item.isDir ? (e) => h.dragOver(index, e) : undefined}
      onDragLeave={item.isDir ? () => h.dragLeave(index) : undefined}
      onDrop={item.isDir ? (e) => h.drop(index, e) : undefined}
    >
      {(p.multiple || p.selected) && (
        <span className="item-check" aria-hidden="true">
          {p.selected && <Icon name="check" size={14} />}
        </span>
      )}
      <div className="item-icon">
        <Thumbnail item={item} size={p.mode === 'mosaic gallery' ? 56 : 28} />
      </div>
      <div className="item-text">
        <p className="item-name" title={nameTitle(item.name)}>
          <span className="item-name-text">
            <Name name={item.name} />
          </span>
          {invalid && <span className="item-badge">{t('files.invalidLink')}</span>}
        </p>
        <p className="item-size">{item.isDir ? (item.dirSize === undefined ? '—' : formatSize(item.dirSize, p.tag)) : formatSize(item.size, p.tag)}</p>
        <p className="item-modified">
          <time dateTime={item.modified} title={Number.isNaN(date.getTime()) ? undefined : formatExact(date, p.tag)}>
            {formatModified(item.modified, p.tag, p.exactDates)}
          </time>
        </p>
      </div>
    </div>
  );
});
