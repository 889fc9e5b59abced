/** Terminal colour and control sequences, removed from shell output (spec §2 "Shell panel"). */

// CSI sequences (colours, cursor moves), OSC sequences (titles, links) and lone escapes.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
