/** The settings tabs: profile always, share management with share permission, global and users for admins (spec §2). */
import { useAtomValue } from 'jotai';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { can } from '../../lib/perm.ts';
import { userAtom } from '../../state/auth.ts';
import { Header } from '../layout/Header.tsx';
import { Layout } from '../layout/Layout.tsx';
import { SearchButton } from '../search/SearchButton.tsx';
import { useTitle } from '../ui/useTitle.ts';

interface Tab {
  href: string;
  label: string;
  /** Also active for sub-pages (users/new, users/3). */
  prefix?: boolean;
}

export function SettingsTabs() {
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  const [location] = useLocation();
  const nav = useRef<HTMLElement>(null);
  // On a narrow screen the tabs scroll sideways: bring the whole current tab into view by scrolling
  // the strip alone (scrollIntoView also moves the page and its scrolling ancestors).
  // biome-ignore lint/correctness/useExhaustiveDependencies: the current tab changes with the location
  useEffect(() => {
    const strip = nav.current;
    const tab = strip?.querySelector('.tab-active');
    if (!strip || !tab) return;
    const s = strip.getBoundingClientRect();
    const r = tab.getBoundingClientRect();
    if (r.left < s.left) strip.scrollLeft -= s.left - r.left;
    else if (r.right > s.right) strip.scrollLeft += r.right - s.right;
  }, [location]);
  const tabs: Tab[] = [{ href: '/settings/profile', label: t('settings.profileSettings') }];
  if (can(user, 'share')) tabs.push({ href: '/settings/shares', label: t('settings.shareManagement') });
  if (user?.perm.admin) {
    tabs.push({ href: '/settings/global', label: t('settings.globalSettings') });
    tabs.push({ href: '/settings/users', label: t('settings.userManagement'), prefix: true });
    tabs.push({ href: '/settings/activity', label: t('audit.title') });
  }
  return (
    <nav ref={nav} className="tabs" aria-label={t('settings.title')}>
      {tabs.map((tab) => {
        const active = location === tab.href || (tab.prefix === true && location.startsWith(`${tab.href}/`));
        return (
          <Link key={tab.href} href={tab.href} className={`tab${active ? ' tab-active' : ''}`} aria-current={active ? 'page' : undefined}>
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}

/** A settings page: the app shell with the page's name (header and document title) and search, the tabs, then the page's cards. */
export function SettingsPage({ title, children }: { title: string; children: ReactNode }) {
  useTitle(title);
  return (
    <Layout
      header={
        <Header title={title}>
          <SearchButton />
        </Header>
      }
    >
      <div className="settings">
        <SettingsTabs />
        {children}
      </div>
    </Layout>
  );
}
