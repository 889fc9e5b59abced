/**
 * Programs that run other programs ("launchers"), and the checks that keep them out of command
 * allowlists. Allowing `env`, `xargs`, `find`, `python3` or `bash` turns an allowlist into
 * "everything" (`env id`, `find . -exec id ;`, `python3 -c ...`), which is how filebrowser's
 * allowlisted commands spawned others (GHSA-3q2w-42mv-cph4). The settings API, the users API
 * and the CLI all call `checkAllowlist`; only an explicit `force` lets an admin add one anyway.
 */
import path from 'node:path';
import { BadRequestError } from '../../errors.ts';

/** Why each launcher family is dangerous, by exact program name. */
const LAUNCHERS: Record<string, string> = {};

function add(reason: string, names: string): void {
  for (const n of names.split(/\s+/).filter(Boolean)) LAUNCHERS[n] = reason;
}

add('it is a shell: it runs any command line', 'sh bash dash ash ksh mksh pdksh oksh loksh zsh csh tcsh fish rc es yash posh elvish nu xonsh pwsh powershell');
add(
  'it runs the program named in its arguments',
  'env xargs parallel nice nohup timeout setsid stdbuf ionice chrt taskset flock chroot unshare nsenter runuser setpriv prlimit cgexec numactl systemd-run run-parts start-stop-daemon daemonize watch time command exec builtin eval source . trap coproc ' +
    'fakeroot proot faketime torsocks proxychains proxychains4 eatmydata ccache distcc sshpass unbuffer chpst softlimit envdir setuidgid ' +
    'dbus-launch xvfb-run ssh-agent screen tmux dtach xdg-open sensible-editor sensible-pager editor pager ld.so ld-linux.so.2 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1',
);
add('it runs commands as another user', 'sudo su doas pkexec sg newgrp');
add(
  'it runs a program given by an option (-exec, -e, --to-command, …)',
  'find rsync scp sftp tar zip busybox toybox dpkg apt apt-get aptitude rpm yum dnf man less more most',
);
add(
  'its own language can run programs',
  'awk gawk mawk nawk sed ed ex vi vim nvim view emacs nano m4 dc gdb lldb expect tclsh wish make gmake cmake ninja bmake',
);
add('it traces or wraps a program it starts', 'strace ltrace valgrind script perf ptrace catchsegv firejail bwrap');
add('it runs remote or network commands', 'ssh rsh rlogin telnet nc ncat netcat socat ftp lftp');
add("its shell escape or start-up file (read from HOME, the user's folder) can run programs", 'sqlite3 psql mysql mariadb octave gnuplot');
add(
  'it runs hooks, aliases or scripts from its configuration',
  'git hg svn npm npx pnpm yarn pip pip3 pipx cargo go gradle mvn ant rake bundle gem composer crontab at batch',
);
add(
  'it changes what later commands resolve to (variables, aliases, PATH lookups)',
  'export declare typeset local readonly set shopt alias unalias hash enable let read mapfile readarray getopts',
);

/** Interpreters, with or without a version suffix (python3, python3.12, perl5.36, node20, lua5.4). */
const INTERPRETER =
  /^(python|pypy|perl|ruby|irb|node|nodejs|deno|bun|php|lua|luajit|tclsh|wish|guile|racket|sbcl|clisp|ocaml|ghci|runghc|runhaskell|julia|Rscript|R|java|jshell|groovy|scala|kotlin|erl|escript|elixir|iex|osascript)[0-9.]*$/;

/**
 * Why `entry` (a program name or path in an allowlist) can launch other programs, or
 * undefined when it is not known to. Matches on the program's base name.
 */
export function launcherReason(entry: string): string | undefined {
  const name = path.posix.basename(entry.trim());
  if (!name) return undefined;
  if (Object.hasOwn(LAUNCHERS, name)) return LAUNCHERS[name];
  if (INTERPRETER.test(name)) return 'it is an interpreter: it runs any program its script asks for';
  return undefined;
}

/** True when `entry` names a program that runs other programs. */
export function isLauncher(entry: string): boolean {
  return launcherReason(entry) !== undefined;
}

/**
 * Checks the entries an allowlist write adds (those not already in `previous`): a launcher
 * is refused with 400 and the reason unless `force` is set. Empty or blank entries are refused
 * too. `what` names the list in messages ("the allowed commands of alice").
 */
export function checkAllowlist(next: readonly string[], previous: readonly string[], force: boolean, what = 'the allowed commands'): void {
  const before = new Set(previous);
  for (const entry of next) {
    if (before.has(entry)) continue;
    if (!entry.trim() || /\s/.test(entry)) {
      throw new BadRequestError(`${what}: ${JSON.stringify(entry)} is not a program name (one name per entry, no spaces)`);
    }
    if (force) continue;
    const reason = launcherReason(entry);
    if (reason) {
      throw new BadRequestError(
        `${what}: "${entry}" can launch other programs (${reason}), so allowing it would allow every command; ` +
          'an admin can add it anyway with force (?force=true, or --force on the CLI)',
      );
    }
  }
}

/**
 * Shells fm can run a checked command line with: POSIX family (same quoting), and none that
 * reads a start-up file from HOME when not interactive (zsh reads ~/.zshenv, and HOME is the
 * user's folder).
 */
const SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh']);
/** Shell options that do not change how a `-c` line is read. */
const SHELL_OPTIONS = /^(-[eufxc]+|--norc|--noprofile|--posix)$/;

/**
 * Validates `settings.shell`: empty (no shell), or a POSIX shell followed by harmless options
 * ending in `-c`, e.g. `["bash", "-c"]` or `["/bin/sh", "-e", "-c"]`. Throws 400 otherwise.
 */
export function checkShellSetting(shell: readonly string[]): void {
  if (shell.length === 0) return;
  const [program, ...options] = shell;
  const name = path.posix.basename(program ?? '');
  if (!SHELLS.has(name)) {
    throw new BadRequestError(`shell: "${program}" is not a supported shell (use one of ${[...SHELLS].join(', ')}, e.g. ["bash", "-c"])`);
  }
  if (program.includes('/') && !program.startsWith('/')) throw new BadRequestError('shell: give the shell by name or by absolute path');
  const last = options[options.length - 1];
  if (!last || !/^-[a-z]*c$/.test(last)) throw new BadRequestError('shell: the last option must be -c (the command line follows it)');
  for (const o of options) {
    if (!SHELL_OPTIONS.test(o)) throw new BadRequestError(`shell: option "${o}" is not allowed (allowed: -c, -e, -u, -f, -x, --norc, --noprofile, --posix)`);
  }
}
