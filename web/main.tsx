/** Start-up: theme, session, language (and captcha), then the first render. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles/index.css';
import { AppProvider } from './app/context.tsx';
import { createApp } from './app/create.ts';
import { settings } from './config.ts';
import { initI18n } from './i18n/index.ts';
import { userLocale } from './i18n/locales.ts';
import { applyTheme } from './lib/theme.ts';
import { userAtom } from './state/auth.ts';
import { ErrorBoundary } from './components/ui/ErrorBoundary.tsx';
import { App } from './routes.tsx';

/** With a captcha configured, mounting waits for its script (spec §4). */
function loadRecaptcha(): Promise<void> {
  return new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = `${settings.ReCaptchaHost.replace(/\/$/, '')}/recaptcha/api.js?render=explicit`;
    s.async = true;
    s.onload = () => {
      const g = (window as unknown as { grecaptcha?: { ready?: (cb: () => void) => void } }).grecaptcha;
      if (g?.ready) g.ready(() => resolve());
      else resolve();
    };
    // A captcha host that cannot be reached must not keep the page blank.
    s.onerror = () => resolve();
    document.head.appendChild(s);
  });
}

async function start(): Promise<void> {
  applyTheme(settings.Theme);
  const app = createApp();
  app.session.connect();
  await app.session.restore();
  await initI18n(userLocale(app.store.get(userAtom)?.locale, navigator.languages));
  if (settings.ReCaptcha && settings.ReCaptchaHost) await loadRecaptcha();
  createRoot(document.getElementById('app')!).render(
    <StrictMode>
      <AppProvider app={app}>
        <ErrorBoundary onReset={() => app.queryClient.resetQueries()}>
          <App />
        </ErrorBoundary>
      </AppProvider>
    </StrictMode>,
  );
}

void start();
