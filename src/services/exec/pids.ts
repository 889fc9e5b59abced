/**
 * The process limit of a sandbox. RLIMIT_NPROC alone does not do: when fm runs as root the
 * sandbox is host uid 0, whose processes the kernel never holds to it. So, best first:
 * - a pids cgroup per run (the cgroup v1 pids hierarchy, or a delegated cgroup v2 subtree with
 *   the pids controller), whose pids.max makes forks beyond the limit fail;
 * - RLIMIT_NPROC inside the sandbox when fm is not root (set by sandbox.ts);
 * - counting the processes of the sandbox's PID namespace.
 * A watchdog polls whichever applies and stops the run once the limit is reached.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface CgroupCandidate {
  /** The folder new cgroups are made in. */
  dir: string;
  version: 1 | 2;
}

/**
 * Where fm could make pids cgroups, from /proc/self/cgroup: its own place in a v1 pids
 * hierarchy; in v2 the parent of its own cgroup (fm's process sits in a leaf; the parent is
 * the delegated subtree), then the root of the hierarchy (only root may write there; it is
 * exempt from the rule that a cgroup with processes cannot hand controllers down). Pure.
 */
export function cgroupCandidates(procSelfCgroup: string, v2Mount: string | undefined, mountRoot = '/sys/fs/cgroup'): CgroupCandidate[] {
  const out: CgroupCandidate[] = [];
  for (const line of procSelfCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(\/.*)$/.exec(line.trim());
    if (!m) continue;
    const [, id, controllers, own] = m;
    if (id !== '0' && controllers.split(',').includes('pids')) out.push({ dir: trimSlash(path.posix.join(mountRoot, 'pids', own)), version: 1 });
    if (id === '0' && controllers === '' && v2Mount) {
      out.push({ dir: trimSlash(path.posix.join(v2Mount, own === '/' ? '/' : path.posix.dirname(own))), version: 2 });
      if (path.posix.dirname(own) !== '/') out.push({ dir: trimSlash(v2Mount), version: 2 });
    }
  }
  return out;
}

function trimSlash(p: string): string {
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

let sequence = 0;

/** One run's pids cgroup. */
export class PidsCgroup {
  private constructor(readonly dir: string) {}

  /** The file a process writes its pid to, to join. */
  get procsFile(): string {
    return path.join(this.dir, 'cgroup.procs');
  }

  /** Makes a cgroup under `base` holding at most `max` processes (threads count). */
  static async create(base: string, max: number): Promise<PidsCgroup> {
    const dir = path.join(base, `fm-exec-${process.pid}-${++sequence}`);
    await fsp.mkdir(dir);
    try {
      await fsp.writeFile(path.join(dir, 'pids.max'), String(max));
    } catch (err) {
      await fsp.rmdir(dir).catch(() => {});
      throw err;
    }
    return new PidsCgroup(dir);
  }

  /** True once a fork failed because of pids.max. */
  async limitHit(): Promise<boolean> {
    const events = await fsp.readFile(path.join(this.dir, 'pids.events'), 'utf8').catch(() => '');
    return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0) > 0;
  }

  /** Removes the cgroup once its last process is gone (they die with the sandbox). */
  async remove(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      try {
        await fsp.rmdir(this.dir);
        return;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return;
        if (code !== 'EBUSY') throw err;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`cgroup ${this.dir} still busy`);
  }
}

/**
 * The first candidate where a pids cgroup can really be made (tried with a throwaway one), or
 * undefined. Leftovers of earlier fm processes that died are removed on the way.
 */
export async function findPidsCgroupBase(): Promise<string | undefined> {
  let own: string;
  try {
    own = await fsp.readFile('/proc/self/cgroup', 'utf8');
  } catch {
    return undefined;
  }
  const v2 = ['/sys/fs/cgroup', '/sys/fs/cgroup/unified'].find((m) => fs.existsSync(path.join(m, 'cgroup.controllers')));
  for (const c of cgroupCandidates(own, v2)) {
    if (c.version === 2) {
      const control = await fsp.readFile(path.join(c.dir, 'cgroup.subtree_control'), 'utf8').catch(() => '');
      if (!control.split(/\s+/).includes('pids')) continue;
    }
    try {
      await removeStale(c.dir);
      const test = await PidsCgroup.create(c.dir, 1);
      await test.remove();
      return c.dir;
    } catch {
      // Not writable here.
    }
  }
  return undefined;
}

async function removeStale(base: string): Promise<void> {
  for (const name of await fsp.readdir(base)) {
    const pid = /^fm-exec-(\d+)-\d+$/.exec(name)?.[1];
    if (pid && !fs.existsSync(`/proc/${pid}`)) await fsp.rmdir(path.join(base, name)).catch(() => {});
  }
}

/** The PID namespace of a process (`pid:[4026531836]`), or undefined when it is gone. */
export function pidNamespaceOf(pid: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

/** How many processes live in a PID namespace (read from /proc). */
export async function countNamespaceProcesses(namespace: string): Promise<number> {
  let n = 0;
  for (const entry of await fsp.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if ((await fsp.readlink(`/proc/${entry}/ns/pid`)) === namespace) n++;
    } catch {
      // Gone meanwhile, or not ours to look at.
    }
  }
  return n;
}

/**
 * Polls `reached` every `intervalMs` until stopped; calls `onLimit` once when it says the limit
 * is reached. Returns the function that stops the polling.
 */
export function watchLimit(reached: () => Promise<boolean>, onLimit: () => void, intervalMs = 100): () => void {
  let stopped = false;
  let busy = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    void reached()
      .then((hit) => {
        if (hit && !stopped) {
          stopped = true;
          clearInterval(timer);
          onLimit();
        }
      })
      .catch(() => {})
      .finally(() => (busy = false));
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
