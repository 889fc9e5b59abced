/** The login screen (spec §2 "Login screen", §5 login validation, §8 login messages). */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'wouter';
import { signup } from '../api/auth.ts';
import { ApiError, statusOf } from '../api/client.ts';
import { instanceName, settings } from '../config.ts';
import { useSession } from '../actions/session.ts';
import { safeRedirect, ssoLoginHref } from '../lib/navigate.ts';
import { useTitle } from '../components/ui/useTitle.ts';

interface Grecaptcha {
  render(el: HTMLElement, opts: { sitekey: string }): number;
  getResponse(id?: number): string;
  reset(id?: number): void;
}
declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

type Mode = 'login' | 'signup';

/** The server asks for a two-factor code (401, `X-FM-OTP: required`, machine code otp_required). */
const asksForCode = (err: unknown) => err instanceof ApiError && err.status === 401 && err.code === 'otp_required';

const SSO_FAILURES = ['off', 'unavailable', 'expired', 'denied', 'refused', 'no_username', 'conflict'];

/** The message for a single sign-on that came back refused (`?oidc_error=`), '' for none. */
function ssoFailureKey(): string {
  const reason = new URLSearchParams(window.location.search).get('oidc_error');
  if (!reason) return '';
  return `login.sso.${SSO_FAILURES.includes(reason) ? reason : 'refused'}`;
}

/** The translation key for a failed login or signup (429 and connection failures get their own). */
function failureKey(err: unknown, mode: Mode): string {
  const status = statusOf(err);
  if (mode === 'signup' && status === 409) return 'login.usernameTaken';
  if (err instanceof ApiError && err.code === 'otp_invalid') return 'login.wrongCode';
  if (status === 429) return 'login.tooManyAttempts';
  if (status === 0) return 'errors.connection';
  return 'login.wrongCredentials';
}

export default function LoginPage() {
  const { login } = useSession();
  const { t } = useTranslation();
  const [, navigate] = useLocation();
  const [mode, setMode] = useState<Mode>('login');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  /** null until the server asks for a two-factor code after the password. */
  const [otp, setOtp] = useState<string | null>(null);
  const [error, setError] = useState(ssoFailureKey);
  const [busy, setBusy] = useState(false);
  const captchaRef = useRef<HTMLDivElement>(null);
  const captchaId = useRef<number | undefined>(undefined);
  const errorId = useId();
  useTitle(t(mode === 'login' ? 'login.title' : 'login.signupTitle'));

  useEffect(() => {
    if (settings.ReCaptcha && window.grecaptcha && captchaRef.current && captchaId.current === undefined) {
      captchaId.current = window.grecaptcha.render(captchaRef.current, { sitekey: settings.ReCaptchaKey });
    }
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError('');
    let captcha = '';
    if (settings.ReCaptcha) {
      captcha = window.grecaptcha?.getResponse(captchaId.current) ?? '';
      if (!captcha) {
        setError('login.wrongCredentials');
        return;
      }
    }
    if (mode === 'signup' && password !== confirm) {
      setError('login.passwordsDontMatch');
      return;
    }
    setBusy(true);
    try {
      if (mode === 'signup') await signup(username, password);
      const user = await login(username, password, captcha, otp?.trim() || undefined);
      // The policy asks this user for two-factor login: lead them to the profile page to enrol.
      const next = user.twoFactor?.required ? '/settings/profile' : null;
      navigate(next ?? safeRedirect(new URLSearchParams(window.location.search).get('redirect')) ?? '/files/', { replace: true });
    } catch (err) {
      if (asksForCode(err) && otp === null) {
        setOtp('');
        setBusy(false);
        return;
      }
      setError(failureKey(err, mode));
      if (settings.ReCaptcha) window.grecaptcha?.reset(captchaId.current);
      setBusy(false);
    }
  };

  const toggle = () => {
    setMode(mode === 'login' ? 'signup' : 'login');
    setError('');
  };

  return (
    <main className="login">
      <form className="login-card" onSubmit={submit} aria-describedby={error ? errorId : undefined}>
        <img className="login-logo" src={settings.Logo} alt="" width={64} height={64} />
        <h1 className="login-title">{instanceName}</h1>
        {error && (
          <p id={errorId} className="login-error" role="alert">
            {t(error)}
          </p>
        )}
        <label className="field">
          <span>{t('login.username')}</span>
          <input
            className="input"
            name="username"
            autoComplete="username"
            autoCapitalize="off"
            spellCheck={false}
            // biome-ignore lint/a11y/noAutofocus: the login page is this one form; its first field is where everyone starts
            autoFocus
            required
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </label>
        <label className="field">
          <span>{t('login.password')}</span>
          <input
            className="input"
            name="password"
            type="password"
            autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {mode === 'signup' && (
          <label className="field">
            <span>{t('login.passwordConfirm')}</span>
            <input
              className="input"
              name="passwordConfirm"
              type="password"
              autoComplete="new-password"
              required
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
            />
          </label>
        )}
        {otp !== null && (
          <label className="field">
            <span>{t('login.code')}</span>
            <input
              className="input"
              name="otp"
              autoComplete="one-time-code"
              inputMode="numeric"
              autoCapitalize="off"
              spellCheck={false}
              // biome-ignore lint/a11y/noAutofocus: the field appears in answer to the user's password; the code is what they type next
              autoFocus
              required
              value={otp}
              onChange={(e) => setOtp(e.target.value)}
            />
            <small className="field-help">{t('login.codeHint')}</small>
          </label>
        )}
        {settings.ReCaptcha && <div className="login-captcha" ref={captchaRef} />}
        <button className="button button-primary login-submit" type="submit" disabled={busy} aria-busy={busy}>
          {busy && <span className="spinner" aria-hidden="true" />}
          <span className={busy ? 'button-label-hidden' : ''}>{t(mode === 'login' ? 'login.submit' : 'login.signup')}</span>
        </button>
        {settings.OidcName && (
          <a className="button button-flat login-sso" href={ssoLoginHref(settings.BaseURL, window.location.search)}>
            {t('login.sso.signIn', { name: settings.OidcName })}
          </a>
        )}
        {settings.Signup && (
          <button type="button" className="link-button login-toggle" onClick={toggle}>
            {t(mode === 'login' ? 'login.createAnAccount' : 'login.loginInstead')}
          </button>
        )}
      </form>
    </main>
  );
}
