/** The sidebar with exactly the entries and conditions of spec §2 "Layout". */
import { useAtomValue, useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { useCurrentDir } from '../../actions/files.ts';
import { useSession } from '../../actions/session.ts';
import { PROJECT_URL, settings, showExternalLinks } from '../../config.ts';
import { analyzeUrl } from '../../lib/paths.ts';
import { can } from '../../lib/perm.ts';
import { userAtom } from '../../state/auth.ts';
import { showPromptAtom } from '../../state/prompts.ts';
import { Icon, type IconName } from '../ui/Icon.tsx';
import { DiskUsage } from './DiskUsage.tsx';

function NavLink({ href, icon, label }: { href: string; icon: IconName; label: string }) {
  return (
    <Link href={href} className="sidebar-item">
      <Icon name={icon} />
      <span>{label}</span>
    </Link>
  );
}

function NavButton({ icon, label, onClick }: { icon: IconName; label: string; onClick: () => void }) {
  return (
    <button type="button" className="sidebar-item" onClick={onClick}>
      <Icon name={icon} />
      <span>{label}</span>
    </button>
  );
}

export function Sidebar({ open }: { open: boolean }) {
  const { logout } = useSession();
  const shownDir = useCurrentDir();
  const { t } = useTranslation();
  const user = useAtomValue(userAtom);
  const showPrompt = useSetAtom(showPromptAtom);
  const [location] = useLocation();
  const onFiles = location.startsWith('/files/');
  const usagePath = (onFiles ? shownDir : undefined) ?? '/';

  return (
    <aside className={`sidebar${open ? ' sidebar-open' : ''}`} aria-label={t('sidebar.label')}>
      <nav className="sidebar-nav">
        {user ? (
          <>
            <NavLink href="/files/" icon="folder" label={t('sidebar.myFiles')} />
            {can(user, 'create') && (
              <>
                <NavButton icon="newFolder" label={t('sidebar.newFolder')} onClick={() => showPrompt({ name: 'newDir' })} />
                <NavButton icon="newFile" label={t('sidebar.newFile')} onClick={() => showPrompt({ name: 'newFile' })} />
              </>
            )}
            <NavLink href="/settings" icon="settings" label={t('sidebar.settings')} />
            <NavLink href="/trash" icon="trash" label={t('trash.title')} />
            {!settings.NoAuth && settings.LoginPage && <NavButton icon="logout" label={t('sidebar.logout')} onClick={() => void logout()} />}
            <NavLink href={analyzeUrl(onFiles ? (shownDir ?? '/') : '/')} icon="treemap" label={t('analyzer.sidebar')} />
          </>
        ) : (
          <>
            <NavLink href="/login" icon="login" label={t('sidebar.login')} />
            {settings.Signup && <NavLink href="/login" icon="person" label={t('sidebar.signup')} />}
          </>
        )}
      </nav>
      {user && onFiles && !settings.DisableUsedPercentage && <DiskUsage path={usagePath} />}
      <footer className="sidebar-credits">
        <span>
          {!showExternalLinks ? (
            <span>fm</span>
          ) : (
            <a href={PROJECT_URL} target="_blank" rel="noopener noreferrer">
              fm
            </a>
          )}{' '}
          <span className="sidebar-version">{settings.Version}</span>
        </span>
        <button type="button" className="link-button" onClick={() => showPrompt({ name: 'help' })}>
          {t('sidebar.help')}
        </button>
      </footer>
    </aside>
  );
}
