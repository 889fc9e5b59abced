/** Asks the signed-in user's own password, which the users API needs for sensitive changes (json auth). */
import { useSetAtom } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { closePromptAtom } from '../../state/prompts.ts';
import { CancelButton, PromptFrame, SubmitButton } from './PromptFrame.tsx';

export function CurrentPasswordPrompt({ onDone }: { onDone: (password: string | null) => void }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  const [password, setPassword] = useState('');
  const answered = useRef(false);
  // Closing the prompt any other way (Escape, overlay, Cancel) cancels the operation.
  useEffect(
    () => () => {
      if (!answered.current) onDone(null);
    },
    [onDone],
  );
  return (
    <PromptFrame
      title={t('prompts.currentPassword')}
      onSubmit={() => {
        if (!password) return;
        answered.current = true;
        close();
        onDone(password);
      }}
      buttons={
        <>
          <CancelButton />
          <SubmitButton label={t('buttons.ok')} disabled={!password} />
        </>
      }
    >
      <label className="field">
        <span>{t('prompts.currentPasswordMessage')}</span>
        <input
          className="input"
          type="password"
          autoComplete="current-password"
          data-autofocus=""
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
    </PromptFrame>
  );
}
