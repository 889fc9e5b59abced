/**
 * The error prompt: a message and an OK button, with the items of a batch that failed (a delete,
 * copy or move of several items where some did not succeed): a notice vanishes, and a partial
 * failure is something the user must see item by item.
 */
import { useSetAtom } from 'jotai';
import { useTranslation } from 'react-i18next';
import { closePromptAtom, type ItemFailure } from '../../state/prompts.ts';
import { displayName } from '../../lib/names.ts';
import { PromptFrame, SubmitButton } from './PromptFrame.tsx';

export function ErrorPrompt({ message, failures }: { message?: string; failures?: ItemFailure[] }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  return (
    <PromptFrame title={t('prompts.error')} onSubmit={() => close()} buttons={<SubmitButton label={t('buttons.ok')} autoFocus />}>
      <p>{message || t(failures?.length ? 'prompts.itemsFailed' : 'prompts.somethingWentWrong')}</p>
      {failures && failures.length > 0 && (
        <ul className="failure-list">
          {failures.map((f) => (
            <li key={f.name}>
              <strong>{displayName(f.name)}</strong>: {f.reason.key ? t(f.reason.key) : f.reason.message}
            </li>
          ))}
        </ul>
      )}
    </PromptFrame>
  );
}
