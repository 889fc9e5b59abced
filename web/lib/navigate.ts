/** Navigation from outside components (wouter follows history.pushState). */
import { withBase } from '../config.ts';

export function navigate(to: string, replace = false): void {
  history[replace ? 'replaceState' : 'pushState'](null, '', withBase(to));
}

/** The current app path (base URL removed), still percent-encoded, plus the query string. */
export function currentAppPath(): string {
  const base = window.FM?.BaseURL ?? '';
  const p = window.location.pathname;
  return (base && p.startsWith(base) ? p.slice(base.length) || '/' : p) + window.location.search;
}

/** A redirect target from a query value: only app-local paths, never another origin. */
export function safeRedirect(value: string | null | undefined): string | undefined {
  if (!value?.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  return value;
}

/** Where single sign-on starts, carrying the login page's `?redirect=` through the provider. */
export function ssoLoginHref(baseURL: string, search: string): string {
  const redirect = safeRedirect(new URLSearchParams(search).get('redirect'));
  return `${baseURL}/api/auth/oidc/login${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`;
}
