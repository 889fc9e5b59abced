/** The startup settings the server injects into index.html as `window.FM` (spec §3). */
import type { StartupSettings } from '../src/api/settings.ts';

declare global {
  interface Window {
    FM?: Partial<StartupSettings>;
  }
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
  TusSettings: { chunkSize: 10 * 1024 * 1024, retryCount: 5 },
};

export const settings: StartupSettings = { ...DEFAULTS, ...(typeof window === 'undefined' ? {} : window.FM) };

/** The instance name shown in titles. */
export const instanceName = settings.Name || 'fm';

/** The project's home page, linked from the sidebar and error notices unless external links are disabled. */
export const PROJECT_URL = 'https://github.com/filebrowser/filebrowser';

/** Prefixes an app or API path with the base URL. */
export const withBase = (path: string): string => `${settings.BaseURL}${path}`;
