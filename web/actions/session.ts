/** Login, logout, renewal and start-up restoration of the session (spec §4 "Auth"). */
import * as authApi from '../api/auth.ts';
import { ApiError, configureSession, ConnectionError } from '../api/client.ts';
import { settings } from '../config.ts';
import type { TokenUser } from '../../src/api/user.ts';
import { decodeToken, isExpired } from '../lib/jwt.ts';
import { navigate } from '../lib/navigate.ts';
import { type Store, useApp } from '../app/context.tsx';
import { tokenAtom, userAtom } from '../state/auth.ts';
import { pushNoticeAtom } from '../state/notifications.ts';
import { errorNotice } from './notify.ts';

const STORAGE_KEY = 'jwt';
/** setTimeout's longest delay (about 24.8 days); a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function writeCookie(token: string): void {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and Safari
  document.cookie = token ? `auth=${token}; Path=/; SameSite=Strict` : 'auth=; Path=/; SameSite=Strict; Max-Age=0';
}

export type Session = ReturnType<typeof createSession>;

/** The session of one app: its token and user live in the app's store. */
export function createSession(store: Store) {
  /** Stores a token in memory, local storage and the `auth` cookie, and sets the user from its claims. */
  function setToken(token: string): void {
    const claims = decodeToken(token);
    clearTimeout(expiryTimer);
    store.set(tokenAtom, token);
    store.set(userAtom, claims.user);
    localStorage.setItem(STORAGE_KEY, token);
    writeCookie(token);
  }

  /** Forgets the token and the user. */
  function clearSession(): void {
    clearTimeout(expiryTimer);
    store.set(tokenAtom, '');
    store.set(userAtom, null);
    localStorage.removeItem(STORAGE_KEY);
    writeCookie('');
  }

  /** Logs in; answers the signed-in user (the login page reads whether the policy asks them to enrol). */
  async function login(username: string, password: string, recaptcha = '', otp?: string): Promise<TokenUser> {
    const token = await authApi.login(username, password, recaptcha, otp);
    setToken(token);
    return decodeToken(token).user;
  }

  let renewing: Promise<void> | null = null;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let warnedFor = '';

  /** Ends the session when `token` expires (unless another token replaced it first): RequireAuth then shows the login page. */
  function endAtExpiry(token: string): void {
    clearTimeout(expiryTimer);
    const left = decodeToken(token).exp * 1000 - Date.now();
    expiryTimer = setTimeout(
      () => {
        if (store.get(tokenAtom) !== token) return;
        if (isExpired(decodeToken(token))) clearSession();
        else endAtExpiry(token);
      },
      Math.max(0, Math.min(left, MAX_TIMER_MS)),
    );
  }

  /**
   * A renewal failed (no connection, or the server refused it): the current token still works
   * until it expires, so the user keeps working, is told once per token, and meets the login
   * page when the token really expires.
   */
  function renewalFailed(err: unknown): void {
    const token = store.get(tokenAtom);
    if (!token) return;
    if (warnedFor !== token) {
      warnedFor = token;
      const { message, detail } = errorNotice(err);
      store.set(pushNoticeAtom, { kind: 'error', message, key: 'errors.renewFailed', detail });
    }
    endAtExpiry(token);
  }

  /** Renews the token once, however many responses asked for it at the same time. */
  function renewToken(): Promise<void> {
    renewing ??= authApi
      .renew()
      .then(setToken)
      .catch(renewalFailed)
      .finally(() => {
        renewing = null;
      });
    return renewing;
  }

  /** Logs out: revokes the token, forgets it, and goes to the login page (or the configured logout page). */
  async function logout(): Promise<void> {
    try {
      await authApi.logout();
    } catch {
      // The token may already be invalid; the local session ends either way.
    }
    clearSession();
    if (settings.LogoutPage && settings.LogoutPage !== '/login' && /^https?:\/\//.test(settings.LogoutPage)) {
      window.location.href = settings.LogoutPage;
      return;
    }
    navigate('/login');
  }

  /** Wires the API client to this session (tokens, renewal, 401). */
  function connectSession(): void {
    configureSession({
      token: () => store.get(tokenAtom),
      unauthorized: clearSession,
      renew: () => void renewToken(),
    });
  }

  /**
   * Start-up: no-auth and proxy instances (no login page) log in with empty credentials; otherwise
   * a stored token is renewed. A token the server refuses is forgotten; when the server cannot be
   * reached the stored token is kept so the files screen can show the connection error.
   */
  async function restoreSession(): Promise<void> {
    if (await takeOidcSession()) return;
    if (settings.NoAuth || !settings.LoginPage) {
      try {
        await login('', '');
        return;
      } catch {
        // Fall through: a proxy without its header still may have a stored token.
      }
    }
    const stored = localStorage.getItem(STORAGE_KEY);
    if (!stored) return;
    try {
      const claims = decodeToken(stored);
      if (isExpired(claims)) {
        clearSession();
        return;
      }
      store.set(tokenAtom, stored);
      store.set(userAtom, claims.user);
      writeCookie(stored);
      setToken(await authApi.renew());
    } catch (err) {
      if (err instanceof ConnectionError) return;
      if (err instanceof ApiError && err.status >= 500) return;
      clearSession();
    }
  }

  /**
   * Back from single sign-on (`/login?oidc_login=1`): takes the session the server left in a
   * one-time cookie. On failure the login page says the sign-in expired.
   */
  async function takeOidcSession(): Promise<boolean> {
    const url = new URL(window.location.href);
    if (!url.searchParams.has('oidc_login')) return false;
    url.searchParams.delete('oidc_login');
    try {
      setToken(await authApi.takeOidcSession());
      window.history.replaceState(null, '', url);
      return true;
    } catch {
      url.searchParams.set('oidc_error', 'expired');
      window.history.replaceState(null, '', url);
      return false;
    }
  }

  return { setToken, clearSession, login, renewToken, logout, connect: connectSession, restore: restoreSession };
}

/** The session of the app of this component. */
export function useSession(): Session {
  return useApp().session;
}
