/** Narrow screens: the selection actions in a bottom bar with the selected count. */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { clearSelectionAtom } from '../../state/selection.ts';
import { IconButton } from '../ui/Button.tsx';
import { FILE_ACTIONS, type ActionContext } from './fileActions.ts';

export function SelectionBar({ ctx }: { ctx: ActionContext }) {
  const { t } = useTranslation();
  const clear = useSetAtom(clearSelectionAtom);
  const actions = FILE_ACTIONS.filter((a) => a.selection && a.visible(ctx));
  return (
    <div className="selection-bar" role="toolbar" aria-label={t('files.selectionActions')}>
      <IconButton icon="close" label={t('buttons.clearSelection')} onClick={() => clear()} />
      {/* Phones show the number alone so every action fits; the full label stays for screen readers. */}
      <p className="selection-count" aria-live="polite">
        <span className="selection-count-label">{t('files.selectedCount', { count: ctx.selectedCount })}</span>
        <span className="selection-count-number" aria-hidden="true">
          {ctx.selectedCount}
        </span>
      </p>
      <div className="selection-actions">
        {actions.map((a) => (
          <IconButton key={a.id} icon={a.icon} label={t(a.label)} data-action={a.id} onClick={() => a.run(ctx)} />
        ))}
      </div>
    </div>
  );
}
