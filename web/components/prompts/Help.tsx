import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom } from '../../state/prompts.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';

/** [key label (literal, or a translation key when it starts with "help."), description key]. */
const SHORTCUTS: [string, string][] = [
  ['F1', 'help.f1'],
  ['F2', 'help.f2'],
  ['DEL', 'help.del'],
  ['ESC', 'help.esc'],
  ['CTRL + S', 'help.ctrlS'],
  ['CTRL + F', 'help.ctrlF'],
  ['CTRL + A', 'help.ctrlA'],
  ['CTRL + C / X / V', 'help.ctrlCXV'],
  ['help.keys.ctrlClick', 'help.ctrlClick'],
  ['help.keys.shiftClick', 'help.shiftClick'],
  ['help.keys.click', 'help.click'],
  ['help.keys.doubleClick', 'help.doubleClick'],
];

/** The keyboard shortcuts (spec §2 "Help lists"). */
export function HelpPrompt() {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  return (
    <PromptFrame title={t('help.title')} onSubmit={() => close()} buttons={<SubmitButton label={t('buttons.ok')} autoFocus />}>
      <dl className="help-list">
        {SHORTCUTS.map(([key, text]) => (
          <div key={key}>
            <dt>
              <kbd>{key.startsWith('help.') ? t(key) : key}</kbd>
            </dt>
            <dd>{t(text)}</dd>
          </div>
        ))}
      </dl>
    </PromptFrame>
  );
}
