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
import { Notifications } from './components/ui/Notifications.tsx';
import { ProgressBar } from './components/ui/ProgressBar.tsx';
import { Prompts } from './components/prompts/Prompts.tsx';
import { UploadPanel } from './components/upload/UploadPanel.tsx';
import { searchOpenAtom } from './state/search.ts';
import LoginPage from './pages/Login.tsx';
import FilesPage from './pages/Files.tsx';
import { ErrorPage } from './pages/ErrorPage.tsx';

const ProfileSettingsPage = lazy(() => import('./pages/ProfileSettings.tsx'));
const SharesSettingsPage = lazy(() => import('./pages/SharesSettings.tsx'));
const GlobalSettingsPage = lazy(() => import('./pages/GlobalSettings.tsx'));
const UsersSettingsPage = lazy(() => import('./pages/UsersSettings.tsx'));
const UserEditPage = lazy(() => import('./pages/UserEdit.tsx'));
const SharePage = lazy(() => import('./pages/Share.tsx'));
const TrashPage = lazy(() => import('./pages/Trash.tsx'));
const ActivitySettingsPage = lazy(() => import('./pages/ActivitySettings.tsx'));
const AnalyzePage = lazy(() => import('./pages/Analyze.tsx'));
const SearchOverlay = lazy(() => import('./components/search/Search.tsx'));

/** The search overlay, loaded when first opened; closed whenever the route changes. */
function Search() {
  const open = useAtomValue(searchOpenAtom);
  if (!open) return null;
  return (
    <Suspense fallback={null}>
      <SearchOverlay />
    </Suspense>
  );
}

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
  const setSearch = useSetAtom(searchOpenAtom);
  // biome-ignore lint/correctness/useExhaustiveDependencies: these are the effects of navigating: they run for each new location
  useEffect(() => {
    clearSelection();
    closePrompts();
    setSidebar(false);
    setMore(false);
    setSearch(false);
  }, [location, clearSelection, closePrompts, setSidebar, setMore, setSearch]);
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
          <Route path="/settings/shares">
            <RequireAuth>
              <SharesSettingsPage />
            </RequireAuth>
          </Route>
          <Route path="/settings/global">
            <RequireAuth admin>
              <GlobalSettingsPage />
            </RequireAuth>
          </Route>
          <Route path="/settings/users">
            <RequireAuth admin>
              <UsersSettingsPage />
            </RequireAuth>
          </Route>
          <Route path="/settings/users/:id">
            {(params: { id: string }) => (
              <RequireAuth admin>
                <UserEditPage key={params.id} id={params.id} />
              </RequireAuth>
            )}
          </Route>
          <Route path="/trash">
            <RequireAuth>
              <TrashPage />
            </RequireAuth>
          </Route>
          <Route path="/settings/activity">
            <RequireAuth admin>
              <ActivitySettingsPage />
            </RequireAuth>
          </Route>
          <Route path={/^\/share\/[^/]+(?:\/.*)?$/}>
            <SharePage />
          </Route>
          <Route path="/403">
            <ErrorPage code={403} />
          </Route>
          <Route path="/404">
            <ErrorPage code={404} />
          </Route>
          <Route path="/500">
            <ErrorPage code={500} />
          </Route>
          <Route path={/^\/analyze(?:\/.*)?$/i}>
            <RequireAuth>
              <AnalyzePage />
            </RequireAuth>
          </Route>
          <Route component={ToFiles} />
        </Switch>
      </Suspense>
      <Search />
      <Prompts />
      <UploadPanel />
      <Notifications />
    </Router>
  );
}
