/** The startup settings the server injects into index.html as `window.FM` (spec §3). */
import type { StartupSettings } from '../src/api/settings.ts';

declare global {
  interface Window {
    FM?: Partial<StartupSettings>;
  }
  /** Set by the build from package.json (homepage or repository); '' when the project has none. */
  const __FM_PROJECT_URL__: string | undefined;
}

const DEFAULTS: StartupSettings = {
  Name: '',
  DisableExternal: false,
  DisableUsedPercentage: false,
  BaseURL: '',
  StaticURL: '/static',
  ReCaptcha: false,
  ReCaptchaKey: '',
  ReCaptchaHost: '',
  Signup: false,
  Version: '',
  NoAuth: false,
  AuthMethod: 'json',
  LoginPage: true,
  LogoutPage: '/login',
  Theme: '',
  Color: '',
  EnableThumbs: true,
  ResizePreview: true,
  EnableExec: false,
  HideLoginButton: false,
  CSS: false,
  Logo: '/static/img/logo.svg',
  TusSettings: { chunkSize: 10 * 1024 * 1024, retryCount: 5 },
  WebDAVPath: '',
  OidcName: '',
};

export const settings: StartupSettings = { ...DEFAULTS, ...(typeof window === 'undefined' ? {} : window.FM) };

/** The instance name shown in titles. */
export const instanceName = settings.Name || 'fm';

/**
 * The project's home page, linked from the sidebar (and its issue tracker from error notices)
 * unless external links are disabled or the build knows no URL.
 */
export const PROJECT_URL = typeof __FM_PROJECT_URL__ === 'string' ? __FM_PROJECT_URL__ : '';

/** External links are shown only when allowed and known. */
export const showExternalLinks = !settings.DisableExternal && PROJECT_URL !== '';

/** Prefixes an app or API path with the base URL. */
export const withBase = (path: string): string => `${settings.BaseURL}${path}`;
