/** The profile page's access tokens: made here for scripts and WebDAV clients, listed with their last use, deleted after confirmation. */
import { useQueryClient } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { keys, tokensQuery } from '../../api/queries.ts';
import * as tokensApi from '../../api/tokens.ts';
import type { AccessTokenDto, CreatedAccessToken } from '../../api/tokens.ts';
import { useNotify } from '../../actions/notify.ts';
import { useLocaleTag } from '../../i18n/index.ts';
import { formatExact } from '../../lib/format.ts';
import { showPromptAtom } from '../../state/prompts.ts';
import { useCopyLink } from '../share/useCopyLink.ts';
import { SubmitButton } from '../prompts/PromptFrame.tsx';
import { IconButton } from '../ui/Button.tsx';
import { ErrorScreen } from '../ui/ErrorScreen.tsx';
import { useAction } from '../ui/useAction.ts';
import { useServerData } from '../ui/useServerData.ts';

/** The lifetimes offered, in days; 0 = no expiry. */
const LIFETIMES = [7, 30, 90, 365, 0] as const;

function NewTokenForm({ onCreated }: { onCreated: (t: CreatedAccessToken) => void }) {
  const { t } = useTranslation();
  const { showError } = useNotify();
  const [name, setName] = useState('');
  const [days, setDays] = useState<number>(30);
  const [readOnly, setReadOnly] = useState(false);
  const [path, setPath] = useState('');
  const action = useAction(async () => {
    try {
      onCreated(await tokensApi.create({ name: name.trim(), expires: days * 86400, readOnly, path: path.trim() }));
    } catch (err) {
      showError(err);
      throw err;
    }
    setName('');
    setPath('');
  });
  return (
    <form
      className="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <label className="field">
        <span>{t('tokens.name')}</span>
        <input className="input" name="tokenName" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        <span>{t('tokens.expires')}</span>
        <select className="input" name="tokenExpires" value={days} onChange={(e) => setDays(Number(e.target.value))}>
          {LIFETIMES.map((d) => (
            <option key={d} value={d}>
              {d === 0 ? t('tokens.never') : t('tokens.days', { count: d })}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>{t('tokens.folder')}</span>
        <input className="input" name="tokenPath" placeholder="/" value={path} onChange={(e) => setPath(e.target.value)} />
      </label>
      <label className="checkbox">
        <input type="checkbox" name="tokenReadOnly" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
        <span>{t('tokens.readOnly')}</span>
      </label>
      <div className="card-actions">
        <SubmitButton label={t('tokens.create')} state={action.state} disabled={!name.trim()} />
      </div>
    </form>
  );
}

/** The secret of a token just made: shown once, with a copy button. */
function NewTokenSecret({ token }: { token: string }) {
  const { t } = useTranslation();
  const copy = useCopyLink();
  return (
    <div className="token-secret" role="status">
      <p>{t('tokens.shownOnce')}</p>
      <div className="token-secret-row">
        <input className="input" readOnly value={token} aria-label={t('tokens.secret')} onFocus={(e) => e.target.select()} />
        <IconButton icon="copy" label={t('tokens.copy')} onClick={() => void copy(token)} />
      </div>
    </div>
  );
}

function TokenRow({ token, onDelete }: { token: AccessTokenDto; onDelete: (t: AccessTokenDto) => void }) {
  const { t } = useTranslation();
  const tag = useLocaleTag();
  const date = (s: number) => formatExact(new Date(s * 1000), tag);
  return (
    <tr data-token={token.id}>
      <td>{token.name}</td>
      <td>{token.readOnly ? t('tokens.readOnly') : t('tokens.full')}</td>
      <td className="table-path">{token.path || t('tokens.wholeScope')}</td>
      <td>{token.expires ? date(token.expires) : t('tokens.never')}</td>
      <td>{token.lastUsed ? date(token.lastUsed) : t('tokens.notUsed')}</td>
      <td className="table-actions">
        <IconButton icon="trash" label={t('tokens.delete', { name: token.name })} onClick={() => onDelete(token)} />
      </td>
    </tr>
  );
}

export function AccessTokensCard() {
  const { t } = useTranslation();
  const { showError, showSuccess } = useNotify();
  const showPrompt = useSetAtom(showPromptAtom);
  const queryClient = useQueryClient();
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
  const { data: tokens, error, retry } = useServerData(tokensQuery());
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.tokens });
  const remove = (token: AccessTokenDto) =>
    showPrompt({
      name: 'confirm',
      props: {
        title: t('tokens.deleteTitle'),
        message: t('tokens.deleteMessage', { name: token.name }),
        confirm: t('buttons.delete'),
        onConfirm: async () => {
          try {
            await tokensApi.remove(token.id);
          } catch (err) {
            showError(err);
            throw err;
          }
          if (created?.id === token.id) setCreated(null);
          refresh();
          showSuccess(t('tokens.deleted'));
        },
      },
    });
  return (
    <section className="card card-wide" aria-labelledby="tokens-title">
      <h2 className="card-title" id="tokens-title">
        {t('tokens.title')}
      </h2>
      <div className="card-body">
        <p className="card-muted">{t('tokens.intro')}</p>
        {created && <NewTokenSecret token={created.token} />}
        {error !== null ? (
          <ErrorScreen code={error} onRetry={retry} />
        ) : tokens === null ? (
          <p className="card-muted">{t('files.loading')}</p>
        ) : tokens.length > 0 ? (
          <div className="table-wrap">
            <table className="table" aria-labelledby="tokens-title">
              <thead>
                <tr>
                  <th scope="col">{t('tokens.name')}</th>
                  <th scope="col">{t('tokens.access')}</th>
                  <th scope="col">{t('tokens.folderColumn')}</th>
                  <th scope="col">{t('tokens.expires')}</th>
                  <th scope="col">{t('tokens.lastUsed')}</th>
                  <th scope="col">
                    <span className="visually-hidden">{t('settings.actions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((token) => (
                  <TokenRow key={token.id} token={token} onDelete={remove} />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <NewTokenForm
          onCreated={(token) => {
            setCreated(token);
            refresh();
          }}
        />
      </div>
    </section>
  );
}
