/**
 * bubblewrap (`bwrap`, Debian package `bubblewrap`): finding it, checking that it works on this
 * machine, and turning a list of mounts (mounts.ts) into its arguments.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SAFE_PATH } from './process.ts';
import { sandboxMounts, type Mount, type SystemLayout } from './mounts.ts';

/** What to tell an admin whose machine cannot sandbox commands. */
export const INSTALL_HINT = 'install the Debian package bubblewrap (apt-get install bubblewrap)';

export interface BwrapOptions {
  network: boolean;
  /** Working folder inside the sandbox. */
  cwd: string;
  /**
   * The first of the fds open on something empty (/dev/null), one per empty-file mask in
   * order (bwrap closes each after reading it): fds firstEmptyFd, firstEmptyFd + 1, ...
   */
  firstEmptyFd?: number;
  /** An fd bwrap writes `{"child-pid": N}` to: the host pid of the sandbox's first process. */
  infoFd?: number;
}

/**
 * The arguments before the program: every namespace unshared (the network kept only when
 * allowed), no nested user namespaces, no capabilities, a new session (no TIOCSTI into a
 * terminal), and the sandbox killed when bwrap or its parent (fm) dies.
 */
export function bwrapArgs(mounts: readonly Mount[], opts: BwrapOptions): string[] {
  const args = ['--unshare-all', '--unshare-user', '--disable-userns'];
  if (opts.network) args.push('--share-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL');
  if (opts.infoFd !== undefined) args.push('--info-fd', String(opts.infoFd));
  let emptyFd = opts.firstEmptyFd;
  for (const m of mounts) {
    if (m.op !== 'empty-file') {
      args.push(...mountArgs(m));
      continue;
    }
    if (emptyFd === undefined) throw new Error('an empty-file mount needs firstEmptyFd');
    args.push('--perms', '0444', '--ro-bind-data', String(emptyFd++), m.dest);
  }
  args.push('--chdir', opts.cwd, '--');
  return args;
}

/** The number of fds bwrapArgs needs from `firstEmptyFd` on. */
export function emptyFdCount(mounts: readonly Mount[]): number {
  return mounts.filter((m) => m.op === 'empty-file').length;
}

function mountArgs(m: Exclude<Mount, { op: 'empty-file' }>): string[] {
  switch (m.op) {
    case 'bind':
    case 'ro-bind':
      return [`--${m.op}${m.optional ? '-try' : ''}`, m.src, m.dest];
    case 'tmpfs':
      return [...(m.size ? ['--size', String(m.size)] : []), '--tmpfs', m.dest];
    case 'symlink':
      return ['--symlink', m.target, m.dest];
    case 'dir':
    case 'proc':
    case 'dev':
    case 'remount-ro':
      return [`--${m.op}`, m.dest];
  }
}

/** bwrap's absolute path: looked up in fm's own PATH (bwrap runs on the host, like fm). */
export function findBwrap(searchPath = process.env.PATH || SAFE_PATH): string | undefined {
  for (const dir of searchPath.split(':')) {
    if (!dir.startsWith('/')) continue;
    const file = path.join(dir, 'bwrap');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // Not in this folder.
    }
  }
  return undefined;
}

/** Whether a system file (a program fm needs) is there. */
export function systemFileExists(p: string): boolean {
  return fs.existsSync(p);
}

/** A descriptor open on /dev/null: the source of the sandbox's empty-file masks. */
export function openDevNull(): number {
  return fs.openSync('/dev/null', 'r');
}

/** The host's top-level system entries, as links (merged /usr) or folders. */
export function systemLayout(): SystemLayout {
  const layout: SystemLayout = {};
  for (const top of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    try {
      const st = fs.lstatSync(top);
      if (st.isSymbolicLink()) layout[top] = { link: fs.readlinkSync(top) };
      else if (st.isDirectory()) layout[top] = 'dir';
    } catch {
      // Not on this machine.
    }
  }
  return layout;
}

/**
 * Runs `true` in a minimal sandbox of the same kind commands get. Resolves to undefined when it
 * works, else to why not (bwrap missing, user namespaces disabled, ...).
 */
export async function probeBwrap(bwrap: string | undefined, layout: SystemLayout): Promise<string | undefined> {
  if (!bwrap) return `bwrap was not found in PATH; ${INSTALL_HINT}`;
  const args = bwrapArgs(
    sandboxMounts({ layout, network: false, tmpSize: 0, programs: [] }, () => ({ kind: 'missing', real: '' })),
    { network: false, cwd: '/' },
  );
  return new Promise((resolve) => {
    const child = spawn(bwrap, [...args, '/usr/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: SAFE_PATH } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d.slice(0, 1000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      resolve(`${bwrap} could not start (${(err as NodeJS.ErrnoException).code ?? err.message}); ${INSTALL_HINT}`);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(undefined);
      else
        resolve(
          `${bwrap} does not work here (${stderr.trim() || `exit ${code ?? signal}`}); it needs user namespaces (kernel.unprivileged_userns_clone=1 when fm does not run as root)`,
        );
    });
  });
}
