/** The frame of every prompt: a modal dialog holding a form with a title, a body and buttons. */
import { useSetAtom } from 'jotai';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { closePromptAtom } from '../../state/prompts.ts';
import { Icon } from '../ui/Icon.tsx';
import type { ActionState } from '../ui/useAction.ts';

export function PromptFrame({
  title,
  children,
  onSubmit,
  buttons,
  className,
}: {
  title: string;
  children?: ReactNode;
  onSubmit?: () => void;
  buttons: ReactNode;
  className?: string;
}) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const first = dialog.querySelector<HTMLElement>('[autofocus], [data-autofocus]') ?? dialog.querySelector<HTMLElement>('input, button[type=submit], button');
    first?.focus();
  }, []);
  return (
    <div ref={ref} className={`prompt${className ? ` ${className}` : ''}`} role="dialog" aria-modal="true" aria-labelledby={id}>
      <form
        className="prompt-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          onSubmit?.();
        }}
      >
        <h2 className="prompt-title" id={id}>
          {title}
        </h2>
        <div className="prompt-body">{children}</div>
        <div className="prompt-buttons">{buttons}</div>
      </form>
    </div>
  );
}

/** The Cancel button that pops the prompt. */
export function CancelButton({ label }: { label?: string }) {
  const { t } = useTranslation();
  const close = useSetAtom(closePromptAtom);
  return (
    <button type="button" className="button button-flat" onClick={() => close()}>
      {label ?? t('buttons.cancel')}
    </button>
  );
}

/** A submit button showing the action's state (spinner, then a done mark). */
export function SubmitButton({
  state = 'idle',
  label,
  variant = 'primary',
  disabled,
  autoFocus,
}: {
  state?: ActionState;
  label: string;
  variant?: 'primary' | 'danger';
  disabled?: boolean;
  autoFocus?: boolean;
}) {
  return (
    <button
      type="submit"
      className={`button button-${variant}`}
      disabled={disabled || state === 'busy'}
      aria-busy={state === 'busy'}
      data-autofocus={autoFocus ? '' : undefined}
    >
      <span className={state === 'idle' ? '' : 'button-label-hidden'}>{label}</span>
      {state === 'busy' && <span className="spinner" aria-hidden="true" />}
      {state === 'done' && (
        <span className="button-done" aria-hidden="true">
          <Icon name="check" size={18} />
        </span>
      )}
    </button>
  );
}
