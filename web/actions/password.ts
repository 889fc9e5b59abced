/** The current-password confirmation the users API asks for under json auth (docs/decisions.md "Users"). */
import { settings } from '../config.ts';
import type { PromptSpec } from '../state/prompts.ts';

/** Thrown when the user closes the password prompt: the operation is dropped silently. */
export class CancelledError extends Error {
  constructor() {
    super('cancelled');
    this.name = 'CancelledError';
  }
}

/** True when the server wants the caller's own password for sensitive user changes. */
export function needsCurrentPassword(): boolean {
  return settings.AuthMethod === 'json';
}

/**
 * Asks for the signed-in user's password through `showPrompt` (undefined when not needed);
 * rejects with CancelledError when closed.
 */
export function askCurrentPassword(showPrompt: (p: PromptSpec) => void): Promise<string | undefined> {
  if (!needsCurrentPassword()) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    showPrompt({
      name: 'currentPassword',
      props: { onDone: (p: string | null) => (p === null ? reject(new CancelledError()) : resolve(p)) },
    });
  });
}
