/** The app shell around a routed page: header, sidebar (a drawer on narrow screens) and the page. */
import { useAtom } from 'jotai';
import type { ReactNode } from 'react';
import { sidebarOpenAtom } from '../../state/layout.ts';
import { useNarrow } from '../ui/useNarrow.ts';
import { Overlay } from '../ui/Overlay.tsx';
import { Header } from './Header.tsx';
import { Sidebar } from './Sidebar.tsx';

export function Layout({ header, children }: { header?: ReactNode; children: ReactNode }) {
  const [open, setOpen] = useAtom(sidebarOpenAtom);
  const narrow = useNarrow();
  return (
    <div className="layout">
      {header ?? <Header />}
      <Sidebar open={narrow && open} />
      {narrow && open && <Overlay onDismiss={() => setOpen(false)} />}
      <main className="layout-main" id="main">
        {children}
      </main>
    </div>
  );
}
