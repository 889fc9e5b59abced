/**
 * The profile page's two-factor login: set up with a QR code (or the key typed by hand) confirmed
 * by one code, the ten recovery codes shown once with a copy button, turned off with the current
 * password. A user the policy asks to enrol sees why.
 */
import { useAtomValue } from 'jotai';
import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TotpEnrolment } from '../../../src/api/totp.ts';
import * as totpApi from '../../api/totp.ts';
import { useNotify } from '../../actions/notify.ts';
import { useSession } from '../../actions/session.ts';
import { settings } from '../../config.ts';
import { userAtom } from '../../state/auth.ts';
import { useCopyLink } from '../share/useCopyLink.ts';
import { SubmitButton } from '../prompts/PromptFrame.tsx';
import { IconButton } from '../ui/Button.tsx';
import { useAction } from '../ui/useAction.ts';

const ShareQr = lazy(() => import('../share/ShareQr.tsx'));

/** Runs an API call, shows its failure and rethrows it (for useAction's state). */
function useFailing() {
  const { showError } = useNotify();
  return async <T,>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (err) {
      showError(err);
      throw err;
    }
  };
}

function Enrolment({ enrolment, onConfirmed }: { enrolment: TotpEnrolment; onConfirmed: (codes: string[]) => void }) {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom)!;
  const failing = useFailing();
  const [code, setCode] = useState('');
  const action = useAction(async () => {
    const { recoveryCodes } = await failing(() => totpApi.confirm(user.id, code.trim()));
    onConfirmed(recoveryCodes);
  });
  return (
    <form
      className="totp-enrol"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      <p>{t('twoFactor.scan')}</p>
      <Suspense fallback={null}>
        <ShareQr value={enrolment.uri} label={t('twoFactor.title')} />
      </Suspense>
      <label className="field">
        <span>{t('twoFactor.secret')}</span>
        <input className="input totp-secret" name="totpSecret" readOnly value={enrolment.secret} onFocus={(e) => e.target.select()} />
      </label>
      <label className="field">
        <span>{t('twoFactor.code')}</span>
        <input
          className="input"
          name="totpCode"
          autoComplete="one-time-code"
          inputMode="numeric"
          required
          // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to enrol; the code from the app goes there next
          autoFocus
          value={code}
          onChange={(e) => setCode(e.target.value)}
        />
      </label>
      <div className="card-actions">
        <SubmitButton label={t('twoFactor.confirm')} state={action.state} disabled={!code.trim()} />
      </div>
    </form>
  );
}

function RecoveryCodes({ codes }: { codes: string[] }) {
  const { t } = useTranslation();
  const copy = useCopyLink();
  return (
    <div className="token-secret" role="status">
      <p>{t('twoFactor.recovery')}</p>
      <ul className="totp-codes" aria-label={t('twoFactor.recoveryLabel')}>
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      <div className="card-actions">
        <IconButton icon="copy" label={t('twoFactor.copy')} onClick={() => void copy(codes.join('\n'))} />
      </div>
    </div>
  );
}

function TurnOff() {
  const { t } = useTranslation();
  const { showSuccess } = useNotify();
  const { renewToken } = useSession();
  const user = useAtomValue(userAtom)!;
  const failing = useFailing();
  const [current, setCurrent] = useState('');
  const needsCurrent = settings.AuthMethod === 'json';
  const action = useAction(async () => {
    await failing(() => totpApi.turnOff(user.id, needsCurrent ? current : undefined));
    await renewToken();
    showSuccess(t('twoFactor.turnedOff'));
  });
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void action.run();
      }}
    >
      {needsCurrent && (
        <label className="field">
          <span>{t('settings.currentPassword')}</span>
          <input
            className="input"
            type="password"
            name="totpCurrentPassword"
            autoComplete="current-password"
            required
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
          />
        </label>
      )}
      <div className="card-actions">
        <SubmitButton label={t('twoFactor.turnOff')} state={action.state} disabled={needsCurrent && !current} />
      </div>
    </form>
  );
}

export function TwoFactorCard() {
  const { t } = useTranslation();
  const { showSuccess } = useNotify();
  const { renewToken } = useSession();
  const user = useAtomValue(userAtom)!;
  const failing = useFailing();
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const state = user.twoFactor;
  const start = useAction(async () => setEnrolment(await failing(() => totpApi.start(user.id))));
  const confirmed = async (recoveryCodes: string[]) => {
    setEnrolment(null);
    setCodes(recoveryCodes);
    await renewToken();
    showSuccess(t('twoFactor.turnedOn'));
  };
  return (
    <section className="card" id="two-factor" aria-labelledby="two-factor-title">
      <h2 className="card-title" id="two-factor-title">
        {t('twoFactor.title')}
      </h2>
      <div className="card-body">
        {state?.required && <p role="alert">{t('twoFactor.required')}</p>}
        <p className="card-muted">{state?.enabled ? t('twoFactor.on') : t('twoFactor.intro')}</p>
        {codes && <RecoveryCodes codes={codes} />}
        {state?.enabled ? (
          <TurnOff />
        ) : enrolment ? (
          <Enrolment enrolment={enrolment} onConfirmed={(c) => void confirmed(c)} />
        ) : (
          <div className="card-actions">
            <button type="button" className="button button-primary" name="totpStart" onClick={() => void start.run()} disabled={start.state === 'busy'}>
              {t('twoFactor.start')}
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
