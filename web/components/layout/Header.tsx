/** The header bar: menu button (narrow screens), logo, the page's name (pages other than the file browser), search or other content, page actions, and a more-actions dropdown with an overlay. */
import { useAtom, useSetAtom } from 'jotai';
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { instanceName, settings } from '../../config.ts';
import { moreOpenAtom, sidebarOpenAtom } from '../../state/layout.ts';
import { IconButton } from '../ui/Button.tsx';
import type { IconName } from '../ui/Icon.tsx';
import { Overlay } from '../ui/Overlay.tsx';
import { useNarrow } from '../ui/useNarrow.ts';

export interface HeaderAction {
  id: string;
  icon: IconName;
  label: string;
  run: () => void;
  /** Stays in the bar on narrow screens instead of moving into the dropdown. */
  pinned?: boolean;
  pressed?: boolean;
}

export function Header({ title, actions = [], children }: { title?: string; actions?: HeaderAction[]; children?: ReactNode }) {
  const { t } = useTranslation();
  const narrow = useNarrow();
  const setSidebar = useSetAtom(sidebarOpenAtom);
  const [more, setMore] = useAtom(moreOpenAtom);
  const menuRef = useRef<HTMLDivElement>(null);
  const inline = narrow ? actions.filter((a) => a.pinned) : actions;
  const dropdown = narrow ? actions.filter((a) => !a.pinned) : [];

  useEffect(() => {
    if (more) menuRef.current?.querySelector<HTMLButtonElement>('button')?.focus();
  }, [more]);

  const button = (a: HeaderAction, labelled = false) => (
    <IconButton
      key={a.id}
      icon={a.icon}
      label={a.label}
      showLabel={labelled}
      aria-pressed={a.pressed}
      data-action={a.id}
      role={labelled ? 'menuitem' : undefined}
      onClick={() => {
        setMore(false);
        a.run();
      }}
    />
  );

  return (
    <header className="header">
      {narrow && <IconButton icon="menu" label={t('buttons.toggleSidebar')} onClick={() => setSidebar((o) => !o)} />}
      <img className="header-logo" src={settings.Logo} alt={instanceName} width={32} height={32} />
      <div className="header-title">
        {/* The page's one level-one heading; its cards carry level-two headings. */}
        {title !== undefined && <h1 className="header-page-name">{title}</h1>}
        {children}
      </div>
      <div className="header-actions">
        {inline.map((a) => button(a))}
        {dropdown.length > 0 && (
          <div className="dropdown">
            <IconButton icon="more" label={t('buttons.more')} aria-haspopup="menu" aria-expanded={more} onClick={() => setMore(!more)} />
            {more && (
              <>
                <Overlay clear onDismiss={() => setMore(false)} />
                <div
                  className="dropdown-menu"
                  role="menu"
                  ref={menuRef}
                  onKeyDown={(e) => {
                    if (e.key === 'Escape') {
                      e.stopPropagation();
                      setMore(false);
                    }
                  }}
                >
                  {dropdown.map((a) => button(a, true))}
                </div>
              </>
            )}
          </div>
        )}
      </div>
    </header>
  );
}
