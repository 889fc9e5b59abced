/**
 * The public share page /share/{hash}/{subpath} (spec §2 "Public share page", §4 "Share page",
 * §9): the shared file or folder, a password prompt on 401, download, open inline, a QR code of
 * the link, the folder's items 100 at a time with multi-select download, copy link for a file.
 */
import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { getPublic, type PublicResource } from '../api/shares.ts';
import { statusOf } from '../api/client.ts';
import { ARCHIVE_FORMATS } from '../api/resources.ts';
import { startDownload } from '../actions/files.ts';
import { useNotify } from '../actions/notify.ts';
import { settings, withBase } from '../config.ts';
import { useLocaleTag } from '../i18n/index.ts';
import { copyText } from '../lib/clipboard.ts';
import { formatExact, formatSize } from '../lib/format.ts';
import { currentAppPath } from '../lib/navigate.ts';
import { baseName, joinPath, trimSlash } from '../lib/paths.ts';
import { parseSharePath, publicDownloadUrl, shareUrl } from '../lib/shareLinks.ts';
import { sortItems } from '../lib/sort.ts';
import { Header } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { iconFor } from '../components/files/Thumbnail.tsx';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { Icon } from '../components/ui/Icon.tsx';
import { useTitle } from '../components/ui/useTitle.ts';
import { SharePassword } from '../components/share/SharePassword.tsx';
import { displayName } from '../lib/names.ts';
import { Name } from '../components/ui/Name.tsx';

const ShareQr = lazy(() => import('../components/share/ShareQr.tsx'));

/** Items listed at first, and added per click on "more" (spec §9). */
export const SHARE_PAGE_ITEMS = 100;

const tokenKey = (hash: string) => `fm-share-token:${hash}`;

type State = { kind: 'loading' } | { kind: 'password'; wrong: string } | { kind: 'error'; code: number } | { kind: 'ok'; res: PublicResource };

function shareLinkHref(hash: string, path: string, isDir: boolean): string {
  const t = trimSlash(path);
  return `/share/${encodeURIComponent(hash)}${t === '/' ? '' : t.split('/').map(encodeURIComponent).join('/')}${isDir && t !== '/' ? '/' : ''}`;
}

export default function SharePage() {
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const tag = useLocaleTag();
  useLocation();
  const parsed = parseSharePath(currentAppPath().split('?')[0]);
  const hash = parsed?.hash ?? '';
  const subpath = parsed?.subpath ?? '/';
  const [token, setToken] = useState(() => sessionStorage.getItem(tokenKey(hash)) ?? '');
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [selected, setSelected] = useState<string[]>([]);
  const [limit, setLimit] = useState(SHARE_PAGE_ITEMS);
  const [format, setFormat] = useState<string>('zip');
  const res = state.kind === 'ok' ? state.res : null;
  useTitle(res ? displayName(res.name) || t('share.title') : t('share.title'));

  useEffect(() => {
    if (!hash) {
      setState({ kind: 'error', code: 404 });
      return;
    }
    const ac = new AbortController();
    setSelected([]);
    setLimit(SHARE_PAGE_ITEMS);
    getPublic(hash, subpath, { token: token || undefined }, ac.signal)
      .then((r) => setState({ kind: 'ok', res: r }))
      .catch((err) => {
        if (ac.signal.aborted) return;
        const code = statusOf(err);
        if (code === 401) {
          // A stale token is forgotten; the password prompt comes up.
          if (token) {
            sessionStorage.removeItem(tokenKey(hash));
            setToken('');
          }
          setState({ kind: 'password', wrong: '' });
        } else setState({ kind: 'error', code });
      });
    return () => ac.abort();
  }, [hash, subpath, token]);

  const unlock = async (password: string) => {
    try {
      const r = await getPublic(hash, subpath, { password });
      if (r.token) {
        sessionStorage.setItem(tokenKey(hash), r.token);
        setToken(r.token);
      }
      setState({ kind: 'ok', res: r });
    } catch (err) {
      const code = statusOf(err);
      if (code === 401) setState({ kind: 'password', wrong: 'login.wrongCredentials' });
      else if (code === 429) setState({ kind: 'password', wrong: 'login.tooManyAttempts' });
      else setState({ kind: 'error', code });
    }
  };

  const items = useMemo(() => (res?.isDir ? sortItems(res.items ?? [], { by: 'name', asc: true }) : []), [res]);
  const tokenOpt = token || undefined;
  const dl = (path: string, opts: { inline?: boolean; algo?: string; files?: string[] } = {}) => withBase(publicDownloadUrl('', hash, path, { ...opts, token: tokenOpt }));
  const pageLink = shareUrl(window.location.origin, settings.BaseURL, hash, subpath);
  const copy = async (text: string) => {
    try {
      await copyText(text);
      showSuccess(t('success.linkCopied'));
    } catch (err) {
      showError(err);
    }
  };

  let body;
  if (state.kind === 'loading') body = <p className="card-muted share-loading">{t('files.loading')}</p>;
  else if (state.kind === 'error') body = <ErrorScreen code={state.code} />;
  else if (state.kind === 'password') body = <SharePassword error={state.wrong} onSubmit={unlock} />;
  else {
    const r = state.res;
    const name = r.name || baseName(subpath) || t('share.title');
    const selectedItems = items.filter((i) => selected.includes(i.path));
    const singleFile = selectedItems.length === 1 && !selectedItems[0].isDir ? selectedItems[0] : undefined;
    const toggle = (p: string) => setSelected((s) => (s.includes(p) ? s.filter((x) => x !== p) : [...s, p]));
    const isImage = !r.isDir && r.type === 'image';
    body = (
      <div className="share-page">
        <ShareCrumbs hash={hash} root={r.isDir && subpath === '/' ? name : undefined} subpath={subpath} />
        <div className="share-grid">
          <section className="card share-info" aria-labelledby="share-name">
            {isImage ? (
              <img className="share-image" src={dl(subpath, { inline: true })} alt={displayName(name)} />
            ) : (
              <Icon name={iconFor(r)} size={72} className={r.isDir ? 'share-icon share-icon-folder' : 'share-icon'} />
            )}
            <h1 className="share-name" id="share-name">
              <Name name={name} />
            </h1>
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
                  <select className="input" aria-label={t('share.format')} value={format} onChange={(e) => setFormat(e.target.value)}>
                    {ARCHIVE_FORMATS.map((f) => (
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
          {r.isDir && (
            <section className="card share-listing" aria-label={t('files.listing')}>
              <div className="share-listing-bar">
                <p className="share-listing-count" aria-live="polite">
                  {selected.length > 0 ? t('files.selectedCount', { count: selected.length }) : t('share.itemCount', { count: items.length })}
                </p>
                {singleFile && (
                  <button type="button" className="button button-flat" onClick={() => void copy(shareUrl(window.location.origin, settings.BaseURL, hash, singleFile.path))}>
                    <Icon name="link" size={18} /> {t('buttons.copyLink')}
                  </button>
                )}
                {selected.length > 0 && (
                  <button
                    type="button"
                    className="button button-primary"
                    onClick={() =>
                      startDownload(singleFile ? dl(singleFile.path) : dl('/', { files: selected, algo: format }))
                    }
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
                        <input type="checkbox" className="share-check" checked={on} aria-label={t('share.select', { name: displayName(item.name) })} onChange={() => toggle(item.path)} />
                        <Icon name={iconFor(item)} className={item.isDir ? 'share-item-folder' : undefined} />
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
          )}
        </div>
      </div>
    );
  }
  return <Layout header={<Header />}>{body}</Layout>;
}

/** The share root plus the sub-path's segments, each linking into the share. */
function ShareCrumbs({ hash, subpath, root }: { hash: string; subpath: string; root?: string }) {
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
        <span key={i} className="breadcrumb-part">
          <Icon name="chevronRight" size={16} className="breadcrumb-sep" />
          <Link href={shareLinkHref(hash, joinPath('/', parts.slice(0, i + 1).join('/')), i < parts.length - 1)} className="breadcrumb" aria-current={i === parts.length - 1 ? 'page' : undefined}>
            <Name name={p} />
          </Link>
        </span>
      ))}
    </nav>
  );
}
