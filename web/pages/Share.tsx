/**
 * The public share page /share/{hash}/{subpath} (spec §2 "Public share page", §4 "Share page",
 * §9): the password gate on 401, then the shared file or folder (components/share/): its card
 * with downloads and a QR code, and for a folder its items; for an upload-only link, the drop page.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { settings, withBase } from '../config.ts';
import { currentAppPath } from '../lib/navigate.ts';
import { baseName } from '../lib/paths.ts';
import { displayName } from '../lib/names.ts';
import { parseSharePath, publicDownloadUrl, publicPreviewUrl, shareUrl } from '../lib/shareLinks.ts';
import { isDrop } from '../api/shares.ts';
import { DropPage } from '../components/drop/DropPage.tsx';
import { Header } from '../components/layout/Header.tsx';
import { Layout } from '../components/layout/Layout.tsx';
import { ShareCrumbs } from '../components/share/ShareCrumbs.tsx';
import { ShareFolder, type ShareDownloadUrl, type SharePreviewUrl } from '../components/share/ShareFolder.tsx';
import { ShareInfo } from '../components/share/ShareInfo.tsx';
import { SharePassword } from '../components/share/SharePassword.tsx';
import { usePublicShare } from '../components/share/usePublicShare.ts';
import { ErrorScreen } from '../components/ui/ErrorScreen.tsx';
import { useTitle } from '../components/ui/useTitle.ts';

export default function SharePage() {
  const { t } = useTranslation();
  useLocation();
  const rawPath = currentAppPath().split('?')[0];
  const parsed = parseSharePath(rawPath);
  const hash = parsed?.hash ?? '';
  const subpath = parsed?.subpath ?? '/';
  const { state, token, unlock } = usePublicShare(hash, subpath);
  const [format, setFormat] = useState<string>('zip');
  const title = state.kind === 'ok' ? displayName(state.res.name) || t('share.title') : t('share.title');
  useTitle(title);

  const dl: ShareDownloadUrl = (path, opts = {}) => withBase(publicDownloadUrl('', hash, path, { ...opts, token: token || undefined }));
  const preview: SharePreviewUrl = (path, size, modified) => withBase(publicPreviewUrl('', hash, path, size, { token: token || undefined, modified }));

  let body;
  if (state.kind === 'loading') body = <p className="card-muted share-loading">{t('files.loading')}</p>;
  else if (state.kind === 'error') body = <ErrorScreen code={state.code} file={subpath !== '/' && !rawPath.endsWith('/')} home={`/share/${hash}/`} />;
  else if (state.kind === 'password') body = <SharePassword error={state.wrong} onSubmit={unlock} />;
  else if (isDrop(state.res)) body = <DropPage hash={hash} token={token} info={state.res} />;
  else {
    const r = state.res;
    const name = r.name || baseName(subpath) || t('share.title');
    // The server lists a share by name, folders first: the page keeps that order.
    const items = r.isDir ? (r.items ?? []) : [];
    const pageLink = shareUrl(window.location.origin, settings.BaseURL, hash, subpath);
    body = (
      <div className="share-page">
        <ShareCrumbs hash={hash} root={r.isDir && subpath === '/' ? name : undefined} subpath={subpath} />
        <div className="share-grid">
          <ShareInfo res={r} name={name} subpath={subpath} items={items} pageLink={pageLink} format={format} onFormat={setFormat} dl={dl} preview={preview} />
          {r.isDir && <ShareFolder key={`${hash}${subpath}`} hash={hash} items={items} format={format} dl={dl} preview={preview} />}
        </div>
      </div>
    );
  }
  // A visitor of a share has no files to search: the header names the share only.
  return <Layout header={<Header title={title} />}>{body}</Layout>;
}
