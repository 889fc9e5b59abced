/** Watching processes started by the code under test (Linux /proc). */
import fs from 'node:fs';

/** Running (a zombie waiting for its new parent to reap it counts as gone). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls until the process is gone (no timing assertion: only a generous upper bound). */
export async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 500 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
  return !alive(pid);
}
