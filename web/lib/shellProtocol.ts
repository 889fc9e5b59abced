/**
 * The command runner's WebSocket protocol (docs/exec.md): one text frame per output line, and
 * always a JSON status frame last. A program may print a line that looks like a status frame,
 * so only the message before the close counts: a candidate is held until the next message.
 */

export type ShellStatus =
  | { type: 'exit'; code: number; signal?: string; reason?: string; error?: string }
  | { type: 'refused'; message: string }
  | { type: 'error'; message: string };

function asStatus(text: string): ShellStatus | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(text) as { type?: unknown };
    if (v && (v.type === 'exit' || v.type === 'refused' || v.type === 'error')) return v as ShellStatus;
  } catch {
    // An ordinary line that starts with a brace.
  }
  return undefined;
}

/** Turns the messages of one run into output lines and the final status. */
export class ShellStream {
  private held: string | undefined;

  /** A message arrived: returns the lines that are certainly output. */
  message(text: string): string[] {
    const out: string[] = [];
    if (this.held !== undefined) out.push(this.held);
    this.held = undefined;
    if (asStatus(text)) this.held = text;
    else out.push(text);
    return out;
  }

  /** The socket closed: the held message is the status (or, if it is not one, output). */
  close(): { lines: string[]; status?: ShellStatus } {
    const held = this.held;
    this.held = undefined;
    if (held === undefined) return { lines: [] };
    const status = asStatus(held);
    return status ? { lines: [], status } : { lines: [held] };
  }
}

/** Keeps the shell's history: up and down walk it, a new entry resets the position. */
export class ShellHistory {
  private items: string[] = [];
  private pos = 0;

  add(command: string): void {
    if (command && this.items.at(-1) !== command) this.items.push(command);
    this.pos = this.items.length;
  }

  /** The previous command (up), or undefined at the start. */
  up(): string | undefined {
    if (this.pos === 0) return this.items.length ? this.items[0] : undefined;
    this.pos--;
    return this.items[this.pos];
  }

  /** The next command (down); past the end, the empty line. */
  down(): string {
    if (this.pos < this.items.length) this.pos++;
    return this.items[this.pos] ?? '';
  }
}

/** Shell panel sizes (spec §9), in px for a given root font size. */
export const SHELL_DEFAULT_EM = 25;
export const SHELL_MIN_EM = 2.25;
export const SHELL_MAX_GAP_EM = 4;
export const SHELL_RESIZE_THROTTLE_MS = 32;

/** Clamps a panel height between the prompt line plus the divider and the window minus 4em. */
export function clampShellHeight(px: number, em: number, dividerPx: number, windowPx: number): number {
  const min = SHELL_MIN_EM * em + dividerPx;
  const max = Math.max(min, windowPx - SHELL_MAX_GAP_EM * em);
  return Math.min(max, Math.max(min, px));
}
