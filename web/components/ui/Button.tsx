/** Buttons: a spinner while an async action runs, then a brief done mark, or back to normal on failure. */
import { useEffect, useRef, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { Icon, type IconName } from './Icon.tsx';

/** How long the done mark stays (spec §9). */
export const DONE_MS = 500;

type State = 'idle' | 'busy' | 'done';

export interface ActionButtonProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick'> {
  /** Resolves on success; a rejection reverts the button (the action reports its own error). */
  onAction: () => Promise<unknown> | unknown;
  variant?: 'primary' | 'flat' | 'danger';
  children: ReactNode;
}

export function ActionButton({ onAction, variant = 'primary', children, disabled, className, ...rest }: ActionButtonProps) {
  const [state, setState] = useState<State>('idle');
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const run = async () => {
    if (state !== 'idle') return;
    setState('busy');
    try {
      await onAction();
      if (!mounted.current) return;
      setState('done');
      setTimeout(() => mounted.current && setState('idle'), DONE_MS);
    } catch {
      if (mounted.current) setState('idle');
    }
  };
  return (
    <button
      type="button"
      {...rest}
      className={`button button-${variant}${className ? ` ${className}` : ''}`}
      disabled={disabled || state === 'busy'}
      aria-busy={state === 'busy'}
      onClick={run}
    >
      <span className={state === 'idle' ? '' : 'button-label-hidden'}>{children}</span>
      {state === 'busy' && <span className="spinner" aria-hidden="true" />}
      {state === 'done' && (
        <span className="button-done" aria-hidden="true">
          <Icon name="check" size={18} />
        </span>
      )}
    </button>
  );
}

export interface IconButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  icon: IconName;
  /** The accessible name, also shown as a tooltip. */
  label: string;
  /** Show the label next to the icon (dropdowns, sidebar). */
  showLabel?: boolean;
}

export function IconButton({ icon, label, showLabel, className, ...rest }: IconButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      className={`icon-button${showLabel ? ' icon-button-labelled' : ''}${className ? ` ${className}` : ''}`}
      aria-label={showLabel ? undefined : label}
      title={showLabel ? undefined : label}
    >
      <Icon name={icon} />
      {showLabel && <span>{label}</span>}
    </button>
  );
}
