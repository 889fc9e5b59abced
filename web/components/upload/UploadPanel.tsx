/**
 * The upload panel (spec §2, §4 "Uploads"): hidden without uploads, otherwise the count, the
 * overall progress, speed and ETA, expandable to each active upload (each with its own cancel);
 * abort-all asks first. An upload that lost the connection shows that it waits for it.
 */
import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useApp } from '../../app/context.tsx';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatEta } from '../../lib/uploadProgress.ts';
import { showPromptAtom } from '../../state/prompts.ts';
import { iconFor } from '../files/Thumbnail.tsx';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';

export function UploadPanel() {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const { uploads } = useApp();
  const up = useSyncExternalStore(uploads.subscribe, uploads.getSnapshot);
  const showPrompt = useSetAtom(showPromptAtom);
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLElement>(null);

  // Notices stack above the panel: publish its height.
  // biome-ignore lint/correctness/useExhaustiveDependencies: observes the panel while it is on the page: again when it appears or goes
  useEffect(() => {
    const el = ref.current;
    const root = document.documentElement;
    if (!el) {
      root.style.removeProperty('--upload-panel-height');
      return;
    }
    const ro = new ResizeObserver(() => root.style.setProperty('--upload-panel-height', `${el.offsetHeight}px`));
    ro.observe(el);
    return () => {
      ro.disconnect();
      root.style.removeProperty('--upload-panel-height');
    };
  }, [up.count > 0 || up.done === true]);

  if (up.count === 0 && !up.done) return null;
  const failed = up.done && up.failed ? up.failed : 0;
  const title = failed
    ? t('upload.failedCount', { count: failed })
    : up.done
      ? t('upload.done')
      : up.paused
        ? t('upload.pausedCount', { count: up.count })
        : up.waiting
          ? t('upload.waitingCount', { count: up.count })
          : t('upload.uploadingCount', { count: up.count });
  const speed = new Intl.NumberFormat(tag, { maximumFractionDigits: 2, minimumFractionDigits: 2 }).format(up.speed);
  const confirmAbort = () =>
    showPrompt({
      name: 'confirm',
      props: { title: t('upload.abortTitle'), message: t('upload.abortMessage'), confirm: t('upload.abort'), onConfirm: () => uploads.abort() },
    });
  return (
    <section ref={ref} className={`upload-panel${open ? ' upload-panel-open' : ''}`} aria-label={t('upload.panel')}>
      <div className="upload-head">
        <button type="button" className="upload-toggle" aria-expanded={open} onClick={() => setOpen(!open)}>
          <Icon name={open ? 'chevronDown' : 'chevronUp'} size={18} />
          <span className="upload-title">{title}</span>
        </button>
        {!up.done &&
          (up.paused ? (
            <IconButton icon="play" label={t('upload.resume')} onClick={() => uploads.resume()} />
          ) : (
            <IconButton icon="pause" label={t('upload.pause')} onClick={() => uploads.pause()} />
          ))}
        {!up.done && <IconButton icon="close" label={t('upload.abort')} onClick={confirmAbort} />}
        {failed > 0 && (
          <>
            <IconButton icon="retry" label={t('upload.retry')} onClick={() => uploads.retry()} />
            <IconButton icon="close" label={t('buttons.close')} onClick={() => uploads.dismiss()} />
          </>
        )}
      </div>
      <div className="upload-summary">
        <div className="upload-bar" role="progressbar" aria-label={t('upload.progress')} aria-valuemin={0} aria-valuemax={100} aria-valuenow={up.percent}>
          <div style={{ inlineSize: `${up.percent}%` }} />
        </div>
        <p className="upload-stats">
          <span className="upload-percent">{up.percent}%</span>
          <span>{t('upload.speed', { speed })}</span>
          <span>{t('upload.eta', { eta: formatEta(up.eta) })}</span>
        </p>
      </div>
      {open && (
        <ul className="upload-items">
          {up.items.map((item) => (
            <li key={item.id} className="upload-item">
              <Icon name={iconFor({ isDir: item.isDir, type: item.type })} size={18} />
              <span className="upload-item-name" title={item.name}>
                {item.name}
              </span>
              <span className="upload-item-progress">{item.waiting ? t('upload.waiting') : `${item.progress}%`}</span>
              <IconButton icon="close" label={t('upload.cancelOne', { name: item.name })} onClick={() => uploads.cancel(item.id)} />
              <div className="upload-item-bar" aria-hidden="true">
                <div style={{ inlineSize: `${item.progress}%` }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
