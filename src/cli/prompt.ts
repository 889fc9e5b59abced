/**
 * Interactive questions, only on a terminal. Without one, a missing value is a usage error
 * (exit 2) and a confirmation is not asked: scripts never hang.
 * Prompts are drawn on stderr so that stdout stays clean for --json and redirects.
 */
import fs from 'node:fs';
import { UsageError } from '../errors.ts';
import { ExitError } from './run.ts';

/** A person is at the keyboard: stdin and stderr are terminals. */
export function isInteractive(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

function context() {
  return { input: process.stdin, output: process.stderr, clearPromptOnDone: false };
}

/** Asks for a new password twice, hidden; retries on a mismatch. */
export async function askNewPassword(what: string): Promise<string> {
  if (!isInteractive()) {
    throw new UsageError(`${what}: no password given and no terminal to ask on (pass it as an argument, or use --password-stdin)`);
  }
  const { password } = await import('@inquirer/prompts');
  for (let attempt = 0; attempt < 3; attempt++) {
    const first = await password({ message: `New password for ${what}:`, mask: '*', validate: (v) => v.length > 0 || 'the password is empty' }, context());
    const second = await password({ message: 'Repeat the password:', mask: '*' }, context());
    if (first === second) return first;
    process.stderr.write('The passwords do not match, try again.\n');
  }
  throw new ExitError(1, 'the passwords did not match');
}

/**
 * Confirms a destructive action on a terminal (unless --yes). Without a terminal it goes
 * ahead, as `rm` does: the command line itself is the confirmation.
 */
export async function confirmDestructive(question: string, yes: boolean | undefined): Promise<void> {
  if (yes || !isInteractive()) return;
  const { confirm } = await import('@inquirer/prompts');
  const ok = await confirm({ message: question, default: false }, context());
  if (!ok) throw new ExitError(1, 'cancelled');
}

/** Reads a password from standard input: the first line, without its line ending. */
export function readPasswordFromStdin(): string {
  const text = fs.readFileSync(0, 'utf8');
  const line = text.split(/\r?\n/)[0] ?? '';
  if (!line) throw new UsageError('--password-stdin: standard input is empty');
  return line;
}
