/**
 * The running app: the jotai store (UI state), the query client (server data) and the upload
 * manager. Created once by main.tsx and handed down; code outside components receives it as an
 * argument instead of importing a global store.
 */
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { Provider, type createStore } from 'jotai';
import { createContext, type ReactNode, useContext } from 'react';
import type { Session } from '../actions/session.ts';
import type { UploadManager } from '../actions/upload.ts';

export type Store = ReturnType<typeof createStore>;

export interface App {
  store: Store;
  queryClient: QueryClient;
  uploads: UploadManager;
  session: Session;
}

const AppContext = createContext<App | null>(null);

/** The app of the surrounding `<AppProvider>`. */
export function useApp(): App {
  const app = useContext(AppContext);
  if (!app) throw new Error('useApp needs an <AppProvider>');
  return app;
}

export function AppProvider({ app, children }: { app: App; children: ReactNode }) {
  return (
    <AppContext.Provider value={app}>
      <QueryClientProvider client={app.queryClient}>
        <Provider store={app.store}>{children}</Provider>
      </QueryClientProvider>
    </AppContext.Provider>
  );
}
