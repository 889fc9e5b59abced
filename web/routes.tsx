/** The route table of spec §2, with its guards and the effects of every route change. */
import { useAtomValue, useSetAtom } from 'jotai';
import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Redirect, Route, Router, Switch, useLocation } from 'wouter';
import { settings } from './config.ts';
import { currentAppPath, safeRedirect } from './lib/navigate.ts';
import { setLocale } from './i18n/index.ts';
import { userLocale } from './i18n/locales.ts';
import { userAtom } from './state/auth.ts';
import { moreOpenAtom, sidebarOpenAtom } from './state/layout.ts';
import { closePromptsOnNavigateAtom } from './state/prompts.ts';
import { clearSelectionAtom } from './state/selection.ts';
import { Layout } from './components/layout/Layout.tsx';
import { ErrorScreen } from './components/ui/ErrorScreen.tsx';
import { Notifications } from './components/ui/Notifications.tsx';
import { ProgressBar } from './components/ui/ProgressBar.tsx';
import { Prompts } from './components/prompts/Prompts.tsx';
import LoginPage from './pages/Login.tsx';
import FilesPage from './pages/Files.tsx';

const ProfileSettingsPage = lazy(() => import('./pages/ProfileSettings.tsx'));

/** Sends visitors without a session to /login with a redirect back; non-admins away from admin pages. */
function RequireAuth({ children, admin = false }: { children: ReactNode; admin?: boolean }) {
  const user = useAtomValue(userAtom);
  if (!user) return <Redirect to={`/login?redirect=${encodeURIComponent(currentAppPath())}`} replace />;
  if (admin && !user.perm.admin) return <Redirect to="/403" replace />;
  return <>{children}</>;
}

function LoginRoute() {
  const user = useAtomValue(userAtom);
  if (user) return <Redirect to={safeRedirect(new URLSearchParams(window.location.search).get('redirect')) ?? '/files/'} replace />;
  return <LoginPage />;
}

/** Every route change clears the selection, leaves multi-select, and closes prompts (unless a success prompt) and menus. */
function RouteEffects() {
  const [location] = useLocation();
  const clearSelection = useSetAtom(clearSelectionAtom);
  const closePrompts = useSetAtom(closePromptsOnNavigateAtom);
  const setSidebar = useSetAtom(sidebarOpenAtom);
  const setMore = useSetAtom(moreOpenAtom);
  useEffect(() => {
    clearSelection();
    closePrompts();
    setSidebar(false);
    setMore(false);
  }, [location, clearSelection, closePrompts, setSidebar, setMore]);
  return null;
}

/** Follows the signed-in user's language (a change of direction reloads the page). */
function LocaleSync() {
  const locale = useAtomValue(userAtom)?.locale;
  const loggedIn = locale !== undefined;
  useEffect(() => {
    if (loggedIn) void setLocale(userLocale(locale, navigator.languages));
  }, [locale, loggedIn]);
  return null;
}

/** Any other path is taken as a path under /files. */
function ToFiles() {
  const raw = currentAppPath();
  return <Redirect to={raw === '/' || raw.startsWith('/?') ? '/files/' : `/files${raw}`} replace />;
}

export function App() {
  return (
    <Router base={settings.BaseURL}>
      <ProgressBar />
      <RouteEffects />
      <LocaleSync />
      <Suspense fallback={null}>
        <Switch>
          <Route path="/login" component={LoginRoute} />
          <Route path={/^\/files$/i}>
            <Redirect to="/files/" replace />
          </Route>
          <Route path="/files/*">
            <RequireAuth>
              <FilesPage />
            </RequireAuth>
          </Route>
          <Route path="/settings">
            <Redirect to="/settings/profile" replace />
          </Route>
          <Route path="/settings/profile">
            <RequireAuth>
              <ProfileSettingsPage />
            </RequireAuth>
          </Route>
          <Route path="/403">
            <Layout>
              <ErrorScreen code={403} />
            </Layout>
          </Route>
          <Route path="/404">
            <Layout>
              <ErrorScreen code={404} />
            </Layout>
          </Route>
          <Route path="/500">
            <Layout>
              <ErrorScreen code={500} />
            </Layout>
          </Route>
          <Route component={ToFiles} />
        </Switch>
      </Suspense>
      <Prompts />
      <Notifications />
    </Router>
  );
}
