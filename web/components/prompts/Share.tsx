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
import { useNotify } from '../../actions/notify.ts';
import { DEFAULT_SHARE_UNIT, MAX_SHARE_DURATION, parseShareDuration, SHARE_UNIT_NAMES, type ShareUnit, withinShareLifetime } from '../../../src/api/shares.ts';
import { sortShares } from '../../lib/shareLinks.ts';
import { closePromptAtom } from '../../state/prompts.ts';
import { Icon } from '../ui/Icon.tsx';
import { useAction } from '../ui/useAction.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';
import { ShareLinkItem } from './ShareLinkItem.tsx';
import { DropOptions } from '../share/DropOptions.tsx';
import { type DropDraft, draftLimits, EMPTY_DROP_DRAFT } from '../../lib/dropLimits.ts';
import { displayName } from '../../lib/names.ts';

export function SharePrompt({ item }: { item: ResourceItem }) {
  const { showError, showSuccess } = useNotify();
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<'list' | 'create'>('list');
  const [time, setTime] = useState('');
  const [unit, setUnit] = useState<ShareUnit>(DEFAULT_SHARE_UNIT);
  const [password, setPassword] = useState('');
  const [drop, setDrop] = useState<DropDraft>(EMPTY_DROP_DRAFT);
  const limits = drop.uploadOnly ? draftLimits(drop) : {};
  const typed = parseShareDuration(time);
  const duration = typed !== undefined && withinShareLifetime(typed, unit) ? typed : undefined;

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
    if (duration === undefined || limits === undefined) return;
    let link: ShareDto;
    try {
      link = await sharesApi.create(item.path, duration, unit, password, drop.uploadOnly ? limits : undefined);
    } catch (err) {
      showError(err);
      throw err;
    }
    changed((l) => [...l, link]);
    // The form starts again: hours, no time, no password.
    setTime('');
    setUnit(DEFAULT_SHARE_UNIT);
    setPassword('');
    setDrop(EMPTY_DROP_DRAFT);
    setMode('list');
  });

  const remove = async (link: ShareDto) => {
    try {
      await sharesApi.remove(link.hash);
    } catch (err) {
      showError(err);
      throw err;
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
            <SubmitButton label={t('buttons.share')} state={create.state} disabled={duration === undefined || limits === undefined || links === null} />
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
                data-autofocus=""
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
          {item.isDir && <DropOptions draft={drop} onChange={setDrop} />}
        </>
      ) : (
        <ul className="share-links" aria-label={t('prompts.shareLinks')}>
          {links.map((link) => (
            <ShareLinkItem key={link.hash} item={item} link={link} onDelete={remove} />
          ))}
        </ul>
      )}
    </PromptFrame>
  );
}
