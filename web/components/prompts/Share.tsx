/**
 * The share dialog (spec §2 "Share dialog", §4 "Create share", §5 "Share duration"): the item's
 * links, or the create form when there are none. Copy link; copy download link for one file.
 */
import { useSetAtom } from 'jotai';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ResourceItem } from '../../api/resources.ts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { keys } from '../../api/queries.ts';
import * as sharesApi from '../../api/shares.ts';
import type { ShareDto } from '../../api/shares.ts';
import { type Notifier, useNotify } from '../../actions/notify.ts';
import { settings } from '../../config.ts';
import { copyText } from '../../lib/clipboard.ts';
import { DEFAULT_SHARE_UNIT, MAX_SHARE_DURATION, parseShareDuration, SHARE_UNIT_NAMES, type ShareUnit, withinShareLifetime } from '../../../src/api/shares.ts';
import { publicDownloadUrl, shareUrl, sortShares } from '../../lib/shareLinks.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { ShareDuration } from '../settings/ShareDuration.tsx';
import { IconButton } from '../ui/Button.tsx';
import { Icon } from '../ui/Icon.tsx';
import { useAction } from '../ui/useAction.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';
import { displayName } from '../../lib/names.ts';

async function copy(text: string, done: string, notify: Notifier): Promise<void> {
  try {
    await copyText(text);
    notify.showSuccess(done);
  } catch (err) {
    notify.showError(err);
  }
}

export function SharePrompt({ item }: { item: ResourceItem }) {
  const notify = useNotify();
  const { showError, showSuccess } = notify;
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<'list' | 'create'>('list');
  const [time, setTime] = useState('');
  const [unit, setUnit] = useState<ShareUnit>(DEFAULT_SHARE_UNIT);
  const [password, setPassword] = useState('');
  const typed = parseShareDuration(time);
  const duration = typed !== undefined && withinShareLifetime(typed, unit) ? typed : undefined;
  const origin = window.location.origin;

  const linksKey = [...keys.shares, 'path', item.path] as const;
  const query = useQuery({ queryKey: linksKey, queryFn: () => sharesApi.forPath(item.path) });
  const links = useMemo(() => (query.data ? sortShares(query.data) : null), [query.data]);
  // Without links the create form comes up; a failed load closes the prompt.
  useEffect(() => {
    if (query.data?.length === 0) setMode('create');
  }, [query.data]);
  useEffect(() => {
    if (!query.error) return;
    showError(query.error);
    close();
  }, [query.error, showError, close]);
  const changed = (update: (links: ShareDto[]) => ShareDto[]) => {
    queryClient.setQueryData<ShareDto[]>(linksKey, (l) => update(l ?? []));
    void queryClient.invalidateQueries({ queryKey: keys.shares });
  };

  const create = useAction(async () => {
    if (duration === undefined) return;
    let link: ShareDto;
    try {
      link = await sharesApi.create(item.path, duration, unit, password);
    } catch (err) {
      showError(err);
      throw err;
    }
    changed((l) => [...l, link]);
    // The form starts again: hours, no time, no password.
    setTime('');
    setUnit(DEFAULT_SHARE_UNIT);
    setPassword('');
    setMode('list');
  });

  const remove = async (link: ShareDto) => {
    try {
      await sharesApi.remove(link.hash);
    } catch (err) {
      showError(err);
      return;
    }
    changed((l) => l.filter((x) => x.hash !== link.hash));
    showSuccess(t('settings.shareDeleted'));
  };

  const cancelCreate = () => {
    if ((links ?? []).length === 0) close();
    else setMode('list');
  };

  const creating = mode === 'create';
  return (
    <PromptFrame
      title={t('prompts.share', { name: displayName(item.name) })}
      className="prompt-wide"
      onSubmit={() => (creating ? void create.run() : close())}
      buttons={
        creating ? (
          <>
            <button type="button" className="button button-flat" onClick={cancelCreate}>
              {t('buttons.cancel')}
            </button>
            <SubmitButton label={t('buttons.share')} state={create.state} disabled={duration === undefined || links === null} />
          </>
        ) : (
          <>
            <button type="button" className="button button-flat" onClick={() => close()}>
              {t('buttons.close')}
            </button>
            <button type="button" className="button button-primary" onClick={() => setMode('create')} disabled={links === null}>
              <Icon name="plus" size={18} /> {t('buttons.new')}
            </button>
          </>
        )
      }
    >
      {links === null ? (
        <p className="card-muted">{t('files.loading')}</p>
      ) : creating ? (
        <>
          <p>{t('prompts.shareMessage')}</p>
          <div className="share-duration">
            <label className="field">
              <span>{t('prompts.shareTime')}</span>
              <input
                className="input"
                type="number"
                name="time"
                min={1}
                max={MAX_SHARE_DURATION}
                step={1}
                inputMode="numeric"
                placeholder={t('settings.permanent')}
                autoFocus
                value={time}
                aria-invalid={duration === undefined}
                onChange={(e) => setTime(e.target.value)}
              />
            </label>
            <label className="field">
              <span>{t('prompts.shareUnit')}</span>
              <select className="input" name="unit" value={unit} onChange={(e) => setUnit(e.target.value as ShareUnit)}>
                {SHARE_UNIT_NAMES.map((u) => (
                  <option key={u} value={u}>
                    {t(`time.${u}`)}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <label className="field">
            <span>{t('prompts.sharePassword')}</span>
            <input
              className="input"
              type="password"
              name="sharePassword"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
        </>
      ) : (
        <ul className="share-links" aria-label={t('prompts.shareLinks')}>
          {links.map((link) => (
            <li key={link.hash} className="share-link" data-hash={link.hash}>
              <span className="share-link-expiry">
                <ShareDuration expire={link.expire} />
                {link.hasPassword && (
                  <span className="badge" title={t('settings.passwordProtected')}>
                    <Icon name="lock" size={14} />
                    <span className="visually-hidden">{t('settings.passwordProtected')}</span>
                  </span>
                )}
              </span>
              <span className="share-link-actions">
                <IconButton
                  icon="link"
                  label={t('buttons.copyLink')}
                  onClick={() => void copy(shareUrl(origin, settings.BaseURL, link.hash), t('success.linkCopied'), notify)}
                />
                {!item.isDir && !link.hasPassword && (
                  <IconButton
                    icon="download"
                    label={t('buttons.copyDownloadLink')}
                    onClick={() => void copy(`${origin}${publicDownloadUrl(settings.BaseURL, link.hash)}`, t('success.linkCopied'), notify)}
                  />
                )}
                <IconButton icon="trash" label={t('buttons.delete')} onClick={() => void remove(link)} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </PromptFrame>
  );
}
